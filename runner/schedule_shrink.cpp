#include "runner/schedule_shrink.hpp"

#include "runner/shrink.hpp"
#include "properties/explore.hpp"

namespace moq::runner {

namespace {

// The first failing schedule of `value` within `bound`, if its exploration finds one
// inside the limits; `schedules` grows by the runs it made.
std::optional<sim::ExploredFailure> first_failure(const properties::Case& value, std::uint32_t bound,
                                                  const ScheduleShrinkLimits& limits, std::uint64_t& schedules) {
    sim::ExploreOptions options;
    options.bound = bound;
    options.schedule_limit = limits.schedules_per_candidate;
    options.deadline = limits.deadline;
    sim::ExploreState state;
    properties::explore_case(value, options, state);
    schedules += state.totals.schedules;
    if (state.failures.empty()) return std::nullopt;
    return std::move(state.failures.front());
}

properties::CaseOutcome failing_outcome(const sim::RunVerdict& verdict) {
    properties::CaseOutcome outcome;
    outcome.ok = false;
    outcome.message = verdict.message;
    outcome.digest = verdict.digest;
    return outcome;
}

}  // namespace

ShrunkSchedule shrink_schedule(const properties::Case& failing, const std::vector<sim::Decision>& decisions,
                               const sim::RunVerdict& verdict, const ScheduleShrinkLimits& limits) {
    ShrunkSchedule result;
    result.decisions = decisions;
    result.verdict = verdict;
    result.bound = limits.bound;
    std::size_t tried = 0;
    std::size_t taken = 0;
    const auto run_candidate = [&](const properties::Case& candidate) -> std::optional<properties::CaseOutcome> {
        std::optional<sim::ExploredFailure> found = first_failure(candidate, limits.bound, limits, result.schedules);
        ++tried;
        if (found) {
            // The shrink takes the first failing candidate it is shown: its schedule is this one.
            ++taken;
            result.decisions = std::move(found->decisions);
            result.verdict = found->verdict;
        }
        if (limits.progress) limits.progress(tried, taken);
        if (!found) return std::nullopt;
        return failing_outcome(result.verdict);
    };
    ShrinkLimits case_limits;
    case_limits.deadline = limits.deadline;
    Shrunk shrunk = shrink_by(failing, failing_outcome(verdict), run_candidate, case_limits);
    result.smallest = std::move(shrunk.smallest);
    result.steps = shrunk.steps;
    result.complete = shrunk.complete;
    // The fewest preemptions: the lowest bound at which the smallest case still fails.
    for (std::uint32_t lower = 0; lower < limits.bound && result.complete; ++lower) {
        if (auto found = first_failure(*result.smallest, lower, limits, result.schedules)) {
            result.decisions = std::move(found->decisions);
            result.verdict = found->verdict;
            result.bound = lower;
            break;
        }
        result.complete = !limits.deadline || std::chrono::steady_clock::now() < *limits.deadline;
    }
    return result;
}

}  // namespace moq::runner
