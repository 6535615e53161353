// How the executor picks the next task, and whether it preempts at a schedule point.
// FIFO is the plain run queue; random picks uniformly; PCT (probabilistic concurrency
// testing) gives tasks random priorities and lowers the running task's priority at
// depth-1 random change points, which finds any bug of depth d with probability at least
// 1 / (tasks * steps^(d-1)) per run.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "sim/random.hpp"

namespace moq::sim {

enum class StrategyKind { fifo, random, pct };

std::string_view strategy_name(StrategyKind kind);
std::optional<StrategyKind> parse_strategy(std::string_view name);

class Strategy {
public:
    virtual ~Strategy() = default;
    // A task exists from now on (ids are dense, in spawn order).
    virtual void spawned(std::uint32_t task) = 0;
    // The next task to run, from the runnable ones in the order they became runnable.
    virtual std::uint32_t pick(const std::vector<std::uint32_t>& runnable) = 0;
    // Called at each schedule point of the running task: true to switch away.
    virtual bool preempt(std::uint32_t running, const std::vector<std::uint32_t>& runnable) = 0;
};

struct StrategyOptions {
    StrategyKind kind = StrategyKind::random;
    int pct_depth = 2;
    std::uint64_t pct_steps = 200;         // expected steps of a run, where change points fall
    std::uint32_t preempt_per_1000 = 250;  // random: chance to switch at a schedule point
};

std::unique_ptr<Strategy> make_strategy(const StrategyOptions& options, Random random);

}  // namespace moq::sim
