// SURW (Zhao et al., selectively uniform random walk, ASPLOS 2025): at each decision a
// task is chosen with weight equal to the events it still has to take, so that every
// interleaving of the tasks' events is about equally likely, where a plain random walk
// favours the orders that finish short tasks first. A task's events are the decision
// points it stands at: a pick of it, and each schedule point it passes. Their counts come
// from a trial run of the same case (StrategyOptions::task_events, by task id, counted by
// the executor: TaskStats::events); a task the trial did not see counts as one event.
#include "sim/deciders/seeded.hpp"

namespace moq::sim::deciders {

namespace {

class Surw final : public Seeded {
public:
    using Seeded::Seeded;

    void spawned(std::uint32_t task) override {
        if (remaining_.size() <= task) remaining_.resize(task + 1, 1);
        const std::vector<std::uint32_t>& expected = options().task_events;
        remaining_[task] = task < expected.size() && expected[task] > 0 ? expected[task] : 1;
    }

private:
    std::uint32_t pick(const DecisionPoint& point) override { return weighted(point); }
    std::uint32_t preempt(const DecisionPoint& point) override { return weighted(point); }

    std::uint32_t weighted(const DecisionPoint& point) {
        std::uint64_t total = 0;
        for (std::uint32_t i = 0; i < point.options; ++i) total += left(point.tasks[i]);
        std::uint64_t draw = schedule_random().below(total);
        std::uint32_t chosen = 0;
        while (draw >= left(point.tasks[chosen])) draw -= left(point.tasks[chosen++]);
        const std::uint32_t task = point.tasks[chosen];
        if (task < remaining_.size() && remaining_[task] > 1)
            --remaining_[task];  // a runnable task has one event left at least
        return chosen;
    }
    [[nodiscard]] std::uint64_t left(std::uint32_t task) const {
        return task < remaining_.size() ? remaining_[task] : 1;
    }

    std::vector<std::uint32_t> remaining_;
};

}  // namespace

std::unique_ptr<Decider> make_surw(const StrategyOptions& options, Random random) {
    return std::make_unique<Surw>(options, random);
}

}  // namespace moq::sim::deciders
