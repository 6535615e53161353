// POS (Yuan et al., partial order sampling): every task holds a random priority and the
// highest runs; at each decision, with probability pos_redraw_per_1000 / 1000, the
// priorities of the tasks that could run there are drawn again. A switch at a schedule
// point happens when another task holds a higher priority than the running one, so the
// orders of racing steps are sampled without the bias a per-step coin gives long runs.
#include "sim/deciders/priorities.hpp"
#include "sim/deciders/seeded.hpp"

namespace moq::sim::deciders {

namespace {

class Pos final : public Seeded {
public:
    using Seeded::Seeded;

    void spawned(std::uint32_t task) override { priorities_.set(task, schedule_random().next()); }

private:
    std::uint32_t pick(const DecisionPoint& point) override {
        maybe_redraw(point);
        return priorities_.highest(point);
    }
    std::uint32_t preempt(const DecisionPoint& point) override {
        maybe_redraw(point);
        return priorities_.highest(point);  // index 0, the running task, goes on
    }

    void maybe_redraw(const DecisionPoint& point) {
        if (!schedule_random().chance(options().pos_redraw_per_1000, 1000)) return;
        for (std::uint32_t i = 0; i < point.options; ++i) priorities_.set(point.tasks[i], schedule_random().next());
    }

    Priorities priorities_;
};

}  // namespace

std::unique_ptr<Decider> make_pos(const StrategyOptions& options, Random random) {
    return std::make_unique<Pos>(options, random);
}

}  // namespace moq::sim::deciders
