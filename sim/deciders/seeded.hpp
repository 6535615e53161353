// What every seeded strategy shares: the drive's faults, each injected at its own rate
// where the world leaves it open, and timer ties drawn uniformly. A strategy says how it
// picks the task to run and whether it switches at a schedule point.
#pragma once

#include "sim/strategy.hpp"

namespace moq::sim::deciders {

class Seeded : public Decider {
public:
    Seeded(const StrategyOptions& options, Random random)
        : options_(options), schedule_(random.fork(1)), faults_(random.fork(2)) {}

    std::uint32_t choose(const DecisionPoint& point) final;

protected:
    // point.tasks holds the runnable tasks (pick), or the running task then the others
    // that may run instead (preempt, where 0 goes on).
    virtual std::uint32_t pick(const DecisionPoint& point) = 0;
    virtual std::uint32_t preempt(const DecisionPoint& point) = 0;
    virtual std::uint32_t tie(const DecisionPoint& point) {
        return static_cast<std::uint32_t>(schedule_.below(point.options));
    }
    // With probability per_1000 / 1000 a choice other than the default, uniformly among
    // them; otherwise the default.
    std::uint32_t off_default(const DecisionPoint& point, std::uint32_t per_1000, Random& random);

    const StrategyOptions& options() const { return options_; }
    Random& schedule_random() { return schedule_; }

private:
    StrategyOptions options_;
    Random schedule_;  // the strategy's own draws
    Random faults_;    // the faults', so a strategy's draws do not move them
};

std::unique_ptr<Decider> make_fifo(const StrategyOptions& options, Random random);
std::unique_ptr<Decider> make_random_walk(const StrategyOptions& options, Random random);
std::unique_ptr<Decider> make_pct(const StrategyOptions& options, Random random);
std::unique_ptr<Decider> make_pos(const StrategyOptions& options, Random random);
std::unique_ptr<Decider> make_surw(const StrategyOptions& options, Random random);

}  // namespace moq::sim::deciders
