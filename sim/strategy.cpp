#include "sim/strategy.hpp"

#include <algorithm>

namespace moq::sim {

std::string_view strategy_name(StrategyKind kind) {
    switch (kind) {
        case StrategyKind::fifo: return "fifo";
        case StrategyKind::random: return "random";
        case StrategyKind::pct: return "pct";
    }
    return "unknown";
}

std::optional<StrategyKind> parse_strategy(std::string_view name) {
    for (StrategyKind kind : {StrategyKind::fifo, StrategyKind::random, StrategyKind::pct})
        if (strategy_name(kind) == name) return kind;
    return std::nullopt;
}

namespace {

class Fifo final : public Strategy {
public:
    void spawned(std::uint32_t) override {}
    std::uint32_t pick(const std::vector<std::uint32_t>& runnable) override { return runnable.front(); }
    bool preempt(std::uint32_t, const std::vector<std::uint32_t>&) override { return false; }
};

class Uniform final : public Strategy {
public:
    Uniform(Random random, std::uint32_t preempt_per_1000) : random_(random), preempt_(preempt_per_1000) {}
    void spawned(std::uint32_t) override {}
    std::uint32_t pick(const std::vector<std::uint32_t>& runnable) override {
        return runnable[random_.below(runnable.size())];
    }
    bool preempt(std::uint32_t, const std::vector<std::uint32_t>& runnable) override {
        return !runnable.empty() && random_.chance(preempt_, 1000);
    }

private:
    Random random_;
    std::uint32_t preempt_;
};

class Pct final : public Strategy {
public:
    Pct(Random random, int depth, std::uint64_t steps) : random_(random), depth_(std::max(depth, 1)) {
        // depth - 1 change points among the first `steps` steps.
        for (int i = 1; i < depth_; ++i) change_points_.push_back(1 + random_.below(std::max<std::uint64_t>(steps, 1)));
        std::sort(change_points_.begin(), change_points_.end());
    }

    void spawned(std::uint32_t task) override {
        // Initial priorities above every change-point priority (1 .. depth-1), random order.
        if (priorities_.size() <= task) priorities_.resize(task + 1, 0);
        const std::uint64_t priority = static_cast<std::uint64_t>(depth_) + (random_.next() >> 16);
        priorities_[task] = priority;
    }

    std::uint32_t pick(const std::vector<std::uint32_t>& runnable) override {
        step();
        std::uint32_t chosen = highest(runnable);
        if (step_lowers_) {  // the change point falls on the chosen task's first step
            priorities_[chosen] = lowered_;
            step_lowers_ = false;
            chosen = highest(runnable);
        }
        return chosen;
    }

    bool preempt(std::uint32_t running, const std::vector<std::uint32_t>& runnable) override {
        step();
        if (step_lowers_) {
            priorities_[running] = lowered_;
            step_lowers_ = false;
        }
        return !runnable.empty() && priorities_[highest(runnable)] > priorities_[running];
    }

private:
    // Counts a step; at a change point, the running task drops to that point's priority.
    void step() {
        ++steps_;
        while (next_change_ < change_points_.size() && change_points_[next_change_] <= steps_) {
            lowered_ = static_cast<std::uint64_t>(depth_ - 1 - static_cast<int>(next_change_));
            step_lowers_ = true;
            ++next_change_;
        }
    }
    std::uint32_t highest(const std::vector<std::uint32_t>& runnable) const {
        return *std::max_element(runnable.begin(), runnable.end(),
                                 [&](std::uint32_t a, std::uint32_t b) { return priorities_[a] < priorities_[b]; });
    }

    Random random_;
    int depth_;
    std::vector<std::uint64_t> change_points_;
    std::size_t next_change_ = 0;
    std::vector<std::uint64_t> priorities_;
    std::uint64_t steps_ = 0;
    bool step_lowers_ = false;
    std::uint64_t lowered_ = 0;
};

}  // namespace

std::unique_ptr<Strategy> make_strategy(const StrategyOptions& options, Random random) {
    switch (options.kind) {
        case StrategyKind::fifo: return std::make_unique<Fifo>();
        case StrategyKind::random: return std::make_unique<Uniform>(random, options.preempt_per_1000);
        case StrategyKind::pct: return std::make_unique<Pct>(random, options.pct_depth, options.pct_steps);
    }
    return std::make_unique<Fifo>();
}

}  // namespace moq::sim
