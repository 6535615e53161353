// Minimising a failing schedule that `moqsim explore` found. A smaller case counts as
// failing when an exploration of it within the bound finds a failing schedule (its
// default schedule alone may pass: the failure needs preemptions); the smallest case is
// then explored at each lower bound, so the schedule kept needs the fewest preemptions.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "properties/suite.hpp"
#include "sim/decisions.hpp"
#include "sim/explorer.hpp"

namespace moq::runner {

struct ScheduleShrinkLimits {
    std::uint32_t bound = 2;  // the exploration's, as the decisions file gives it
    // A candidate whose exploration passes this many schedules without a failure counts as
    // passing, so one large candidate cannot stall the shrink.
    std::uint64_t schedules_per_candidate = 20000;
    std::optional<std::chrono::steady_clock::time_point> deadline;
    // Called after every candidate: how many were tried, and how many were taken.
    std::function<void(std::size_t tried, std::size_t taken)> progress;
};

struct ShrunkSchedule {
    std::unique_ptr<properties::Case> smallest;
    std::vector<sim::Decision> decisions;  // its failing schedule
    sim::RunVerdict verdict;
    std::uint32_t bound = 0;  // the fewest preemptions at which it still fails
    std::size_t steps = 0;    // smaller cases taken
    std::uint64_t schedules = 0;
    bool complete = true;  // false: the deadline came first
};

// `failing` fails along `decisions`, whose verdict is `verdict`.
ShrunkSchedule shrink_schedule(const properties::Case& failing, const std::vector<sim::Decision>& decisions,
                               const sim::RunVerdict& verdict, const ScheduleShrinkLimits& limits);

}  // namespace moq::runner
