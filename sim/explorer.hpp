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
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "sim/decider.hpp"
#include "sim/footprint.hpp"

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
    // Runs made only to walk past subtrees that other shards explore (not schedules).
    std::uint64_t other_shards = 0;
    double seconds = 0;
    void add(const ExploreTotals& other);
};

// Why an exploration ended.
enum class ExploreEnd { exhaustive, failure, budget };
std::string_view explore_end_name(ExploreEnd end);

// One decision of the path an unfinished exploration stood on, with what is left to try
// there. Sleep sets and cached states are not kept: a resumed search explores a superset.
struct ExplorePathStep {
    DecisionKind kind = DecisionKind::pick;
    std::uint32_t options = 1;
    std::uint32_t fallback = 0;
    bool costly = false;
    std::vector<std::uint32_t> tasks;  // the task of each choice; empty for the drive's
    std::uint32_t spent = 0;           // of the bound, before this decision
    std::uint32_t next_rank = 0;       // in the order default first, then the others
    std::uint32_t choice = 0;
};

// Where an exploration stopped by its deadline goes on: the next schedule's prefix, and
// how many subtrees at the split depth it had entered (for shards).
struct ExploreFrontier {
    std::vector<ExplorePathStep> path;
    std::uint64_t subtrees = 0;
};

// A share of the tree: the subtrees below each choice at depth split_depth are dealt out
// in the order the search meets them, every total-th from index. Runs that end above that
// depth are shard 0's. Every shard walks the decisions above it the same way, so the shards
// together run what one search runs.
struct ExploreShard {
    std::uint64_t index = 0;
    std::uint64_t total = 1;
    std::uint32_t split_depth = 4;
};

struct ExploreOptions {
    std::uint32_t bound = 2;
    bool sleep_sets = true;
    // Skip a decision point whose state digest (Executor::on_state) was reached before with
    // at least as much of the bound left; only where the run gives its state.
    bool state_caching = true;
    bool keep_going = false;  // run on past failures
    std::optional<std::chrono::steady_clock::time_point> deadline;
    // Stop, as at the deadline, once the whole exploration (ExploreState) ran this many schedules.
    std::optional<std::uint64_t> schedule_limit;
    ExploreShard shard;
    // Go on from here instead of from the root (an unfinished exploration's frontier).
    const ExploreFrontier* start = nullptr;
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
    // Where an exploration runs many cases (moqsim explore --ops): which one failed.
    std::optional<std::uint64_t> case_index;
};

// What goes on across the cases of one exploration: the totals, the failures, and
// whether it has ended (a failure without keep_going, or the deadline).
struct ExploreState {
    ExploreTotals totals;
    std::vector<ExploredFailure> failures;
    ExploreEnd end = ExploreEnd::exhaustive;
    // Set when the deadline stopped the search: where it would have gone on.
    std::optional<ExploreFrontier> frontier;
    [[nodiscard]] bool ended() const { return end != ExploreEnd::exhaustive; }
};

// The message of a failure that is a run which left the prefix it was given (took
// another decision there, or ended before its end) starts so. The simulator is
// deterministic, so the code under test ran another way along the same decisions. The
// failure's decisions are that prefix; the exploration ends there, keep_going or not.
inline constexpr std::string_view nondeterministic_run = "nondeterministic: ";

// The first run of a search resumed from options.start left that path, at decision `at`:
// the frontier is another case's or another build's.
struct NotDeterministic : std::runtime_error {
    NotDeterministic(const std::string& what, std::size_t decision) : std::runtime_error(what), at(decision) {}
    std::size_t at;
};

// Every schedule of `run` within options.bound (or up to a failure or the deadline). `run`
// makes one whole run with the decider it is given and judges it. Returns this call's
// totals; adds them and its failures to `state` (a run that leaves its prefix among them,
// nondeterministic_run). Throws NotDeterministic if the first run leaves options.start's
// path.
ExploreTotals explore(const std::function<RunVerdict(Decider&)>& run, const ExploreOptions& options,
                      ExploreState& state);

}  // namespace moq::sim
