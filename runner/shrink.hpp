// Minimising a failing case along its RapidCheck shrink tree.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>

#include "properties/suite.hpp"

namespace moq::runner {

struct Shrunk {
    std::unique_ptr<properties::Case> smallest;
    properties::CaseOutcome outcome;
    std::size_t steps = 0;
    bool complete = true;  // false: the time ran out before every smaller case was tried
};

struct ShrinkLimits {
    // Past this, no further candidate runs: the smallest failing case found so far stands.
    std::optional<std::chrono::steady_clock::time_point> deadline;
    // Which failures count as the same one (all, unless given): a candidate that fails
    // otherwise is not taken.
    std::function<bool(const properties::CaseOutcome&)> same_failure;
};

// How a smaller case is judged: its failing outcome, or nothing when it passes.
using CandidateRun = std::function<std::optional<properties::CaseOutcome>(const properties::Case&)>;

// Repeatedly takes the first smaller case that `run_candidate` says fails, until none does
// or the deadline passes. `outcome` is the failing case's own.
Shrunk shrink_by(const properties::Case& failing, properties::CaseOutcome outcome, const CandidateRun& run_candidate,
                 const ShrinkLimits& limits = {});

// shrink_by with each candidate run once under `settings`.
Shrunk shrink(const properties::Case& failing, const properties::RunSettings& settings,
              const ShrinkLimits& limits = {});

}  // namespace moq::runner
