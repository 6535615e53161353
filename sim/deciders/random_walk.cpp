// Random walk: a uniform pick, and at a schedule point, with probability
// preempt_per_1000 / 1000, a uniform pick again among the running task and the others.
#include "sim/deciders/seeded.hpp"

namespace moq::sim::deciders {

namespace {

class RandomWalk final : public Seeded {
public:
    using Seeded::Seeded;

private:
    std::uint32_t pick(const DecisionPoint& point) override {
        return static_cast<std::uint32_t>(schedule_random().below(point.options));
    }
    // At preempt_per_1000 the running task is put back among the runnable and one of them
    // picked uniformly, itself included: the chance to switch grows with the tasks that
    // could run instead, as a preempting scheduler's would.
    std::uint32_t preempt(const DecisionPoint& point) override {
        if (!schedule_random().chance(options().preempt_per_1000, 1000)) return 0;
        return static_cast<std::uint32_t>(schedule_random().below(point.options));
    }
};

}  // namespace

std::unique_ptr<Decider> make_random_walk(const StrategyOptions& options, Random random) {
    return std::make_unique<RandomWalk>(options, random);
}

}  // namespace moq::sim::deciders
