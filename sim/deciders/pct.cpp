// PCT (Burckhardt et al., probabilistic concurrency testing): tasks get random priorities
// above depth - 1 change points drawn among the first pct_steps decisions; the highest
// priority runs, and at each change point the running task drops to that point's priority
// (below every initial one), so a bug that needs d ordered events is found with
// probability at least 1 / (tasks * steps^(d-1)) per run.
#include <algorithm>

#include "sim/deciders/priorities.hpp"
#include "sim/deciders/seeded.hpp"

namespace moq::sim::deciders {

namespace {

class Pct final : public Seeded {
public:
    Pct(const StrategyOptions& options, Random random)
        : Seeded(options, random), depth_(std::max(options.pct_depth, 1)) {
        for (int i = 1; i < depth_; ++i)
            change_points_.push_back(1 + schedule_random().below(std::max<std::uint64_t>(options.pct_steps, 1)));
        std::sort(change_points_.begin(), change_points_.end());
    }

    void spawned(std::uint32_t task) override {
        // Initial priorities above every change point's (1 .. depth - 1), in random order.
        priorities_.set(task, static_cast<std::uint64_t>(depth_) + (schedule_random().next() >> 16));
    }

private:
    std::uint32_t pick(const DecisionPoint& point) override {
        const bool lowers = step();
        std::uint32_t chosen = priorities_.highest(point);
        if (lowers) {  // the change point falls on the chosen task's first step
            priorities_.set(point.tasks[chosen], lowered_);
            chosen = priorities_.highest(point);
        }
        return chosen;
    }

    std::uint32_t preempt(const DecisionPoint& point) override {
        if (step()) priorities_.set(point.tasks[0], lowered_);
        const std::uint32_t other = priorities_.highest(point, 1);
        return priorities_.of(point.tasks[other]) > priorities_.of(point.tasks[0]) ? other : 0;
    }

    // Counts a decision; true at a change point, whose priority is then lowered_.
    bool step() {
        ++steps_;
        bool lowers = false;
        while (next_change_ < change_points_.size() && change_points_[next_change_] <= steps_) {
            lowered_ = static_cast<std::uint64_t>(depth_ - 1 - static_cast<int>(next_change_));
            lowers = true;
            ++next_change_;
        }
        return lowers;
    }

    int depth_;
    std::vector<std::uint64_t> change_points_;
    std::size_t next_change_ = 0;
    Priorities priorities_;
    std::uint64_t steps_ = 0;
    std::uint64_t lowered_ = 0;
};

}  // namespace

std::unique_ptr<Decider> make_pct(const StrategyOptions& options, Random random) {
    return std::make_unique<Pct>(options, random);
}

}  // namespace moq::sim::deciders
