// Minimising a failure: its case along the case's shrink tree and its schedule with it,
// whatever found it. A smaller case counts as failing when one of these runs of it fails,
// tried in this order:
//   1. along the decisions of the failing run so far (the defaults past them);
//   2. where a sweep found it, under the strategy that found it, from the case's own seed;
//   3. otherwise (an exploration's failure, the guided search's, a file's), an
//      exploration within the preemptions the failing run spent (at most explore_bound),
//      for a failure that needs a switch its default schedule lacks.
// The failing run of each smaller case taken is the one its decisions come from. Once no
// smaller case fails, the smallest is explored at each lower bound: the schedule kept is
// the first failure at the fewest preemptions.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "properties/suite.hpp"

namespace moq::runner {

struct Failing {
    const properties::Case* value = nullptr;
    properties::CaseOutcome outcome;            // its failing run, with the decisions it made
    std::optional<sim::StrategyKind> strategy;  // the sweep's, where a sweep found it
};

struct ShrinkLimits {
    // Past this, no further candidate runs: the smallest failing case found so far stands.
    std::optional<std::chrono::steady_clock::time_point> deadline;
    // Which failures count as the same one (all, unless given): a candidate that fails
    // otherwise is not taken.
    std::function<bool(const properties::CaseOutcome&)> same_failure;
    // The most preemptions an exploration of a candidate, or of the smallest case, spends.
    std::uint32_t explore_bound = 2;
    // A candidate whose exploration passes this many schedules without a failure counts as
    // passing, so one large candidate cannot stall the shrink.
    std::uint64_t schedules_per_candidate = 2000;
    // Called after every candidate: how many were tried, and how many were taken.
    std::function<void(std::size_t tried, std::size_t taken)> progress;
};

struct Shrunk {
    std::unique_ptr<properties::Case> smallest;
    properties::CaseOutcome outcome;  // its failing run, with its decisions
    std::size_t steps = 0;            // smaller cases taken
    std::uint64_t schedules = 0;      // runs made by explorations
    bool complete = true;             // false: the deadline came first
};

Shrunk shrink(const Failing& failure, const ShrinkLimits& limits = {});

// The run of `value` under `settings` with its decisions recorded.
properties::CaseOutcome recorded_run(const properties::Case& value, properties::RunSettings settings);

}  // namespace moq::runner
