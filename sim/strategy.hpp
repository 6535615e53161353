// The seeded deciders a sweep runs its cases under, each from one seed and its own rates:
//   fifo    the first runnable task; no switch at a schedule point;
//   random  a uniform pick, and a switch at a schedule point at preempt_per_1000;
//   pct     probabilistic concurrency testing: random priorities, the running task lowered
//           at depth - 1 change points; finds a bug of depth d with probability at least
//           1 / (tasks * steps^(d-1)) per run;
//   pos     partial order sampling: the highest priority runs, and at each point the
//           runnable tasks' priorities are drawn again at pos_redraw_per_1000;
//   surw    selectively uniform random walk: a task is picked with weight equal to its
//           events still to come (task_events, counted in a trial run of the same case),
//           so every interleaving of the tasks' events is about equally likely.
// The drive's open faults (spurious and fresh polls, clock jumps) each leave their default
// at their own rate under every strategy; a timer tie is drawn uniformly (fifo: in order).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/decider.hpp"
#include "sim/random.hpp"

namespace moq::sim {

enum class StrategyKind { fifo, random, pct, pos, surw };

std::string_view strategy_name(StrategyKind kind);
std::optional<StrategyKind> parse_strategy(std::string_view name);
// Every strategy, in the order above.
const std::vector<StrategyKind>& strategies();
// One line on what it does, for a listing.
std::string_view strategy_summary(StrategyKind kind);
// "fifo, random, pct, pos or surw".
std::string strategy_names();

struct StrategyOptions {
    StrategyKind kind = StrategyKind::random;
    std::uint32_t preempt_per_1000 = 250;  // random: a switch at a schedule point
    // Where the world leaves a fault open, how often it is injected.
    std::uint32_t spurious_polls_per_1000 = 300;
    std::uint32_t fresh_task_polls_per_1000 = 150;
    std::uint32_t clock_jumps_per_1000 = 100;
    int pct_depth = 2;
    std::uint64_t pct_steps = 200;  // expected decisions of a run, where change points fall
    std::uint32_t pos_redraw_per_1000 = 100;
    // surw: each task's expected events, by task id (a task past the list: 1).
    std::vector<std::uint32_t> task_events;
};

std::unique_ptr<Decider> make_strategy(const StrategyOptions& options, Random random);

}  // namespace moq::sim
