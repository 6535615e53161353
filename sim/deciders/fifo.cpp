// FIFO: the run queue as it is, no switch at a schedule point, timers in their order.
#include "sim/deciders/seeded.hpp"

namespace moq::sim::deciders {

namespace {

class Fifo final : public Seeded {
public:
    using Seeded::Seeded;

private:
    std::uint32_t pick(const DecisionPoint&) override { return 0; }
    std::uint32_t preempt(const DecisionPoint&) override { return 0; }
    std::uint32_t tie(const DecisionPoint&) override { return 0; }
};

}  // namespace

std::unique_ptr<Decider> make_fifo(const StrategyOptions& options, Random random) {
    return std::make_unique<Fifo>(options, random);
}

}  // namespace moq::sim::deciders
