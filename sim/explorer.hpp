// Stateless model checking over a run's decisions (sim/decisions.hpp): depth-first over
// the decision tree, each schedule a run from the start that follows a prefix of choices
// and takes the defaults past it. A preemption bound, as CHESS has it, keeps the tree
// small: leaving a costly default (a switch away from a task that could still run, a
// fault the case left open) spends one unit; a switch when a task parks or ends is free.
// Sleep sets prune schedules that only reorder steps on disjoint objects; state caching
// skips a point whose whole state was explored before.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/decisions.hpp"

namespace moq::sim {

struct ExploreTotals {
    std::uint64_t schedules = 0;        // runs made
    std::uint64_t pruned_by_bound = 0;  // choices not taken: they would pass the bound
    std::uint64_t pruned_by_sleep = 0;  // choices not taken: their task was asleep
    std::uint64_t sleep_blocked = 0;    // runs below whose point every choice was asleep
    std::uint64_t pruned_by_cache = 0;  // points not explored: their state was, with as much bound left
    std::uint64_t distinct_states = 0;  // states the cache holds (0: the run gives no state)
    std::uint64_t failures = 0;
    std::uint64_t deepest = 0;  // the most decisions one schedule made
    double seconds = 0;
    void add(const ExploreTotals& other);
};

// Why an exploration ended.
enum class ExploreEnd { exhaustive, failure, budget };
std::string_view explore_end_name(ExploreEnd end);

struct ExploreOptions {
    std::uint32_t bound = 2;
    bool sleep_sets = true;
    // Skip a decision point whose state digest (Executor::on_state) was reached before with
    // at least as much of the bound left; only where the run gives its state.
    bool state_caching = true;
    bool keep_going = false;  // run on past failures
    std::optional<std::chrono::steady_clock::time_point> deadline;
    // Called after every schedule, with the totals of the whole exploration so far.
    std::function<void(const ExploreTotals&)> progress;
};

// What the suite's model said of one run.
struct RunVerdict {
    bool ok = true;
    std::string message;
    std::uint64_t digest = 0;
};

struct ExploredFailure {
    std::vector<Decision> decisions;
    RunVerdict verdict;
};

// What goes on across the cases of one exploration: the totals, the failures, and
// whether it has ended (a failure without keep_going, or the deadline).
struct ExploreState {
    ExploreTotals totals;
    std::vector<ExploredFailure> failures;
    ExploreEnd end = ExploreEnd::exhaustive;
    [[nodiscard]] bool ended() const { return end != ExploreEnd::exhaustive; }
};

// Every schedule of `run` within options.bound (or up to a failure or the deadline). `run`
// makes one whole run with the chooser it is given and judges it. Returns this call's
// totals; adds them and its failures to `state`. Throws std::runtime_error if a run does
// not take the decisions its prefix names (the run is not deterministic).
ExploreTotals explore(const std::function<RunVerdict(Chooser&)>& run, const ExploreOptions& options,
                      ExploreState& state);

}  // namespace moq::sim
