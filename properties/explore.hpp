// Exploring one case of a suite: every schedule within the bound (sim/explorer.hpp), each
// run judged by the suite's model exactly as a sweep judges a case.
#pragma once

#include "properties/suite.hpp"
#include "sim/explorer.hpp"

namespace moq::properties {

// The schedules of `value` under `settings` (its decider is the explorer's). Adds to
// `state`, and returns this case's totals. With `around` (a recorded run's decisions), the
// exploration is around that run: each point's default is the choice the run made there
// while the run follows it, so the first schedule is that run and each unit of the bound
// one costly choice other than its.
sim::ExploreTotals explore_case(const Case& value, const sim::ExploreOptions& options, sim::ExploreState& state,
                                RunSettings settings = {}, const std::vector<sim::Decision>& around = {});

// One run of `value` along `decisions` (the defaults past them), its decisions recorded
// (CaseOutcome::decisions); `followed` tells whether the run made exactly those decisions.
struct DecidedRun {
    CaseOutcome outcome;
    bool followed = false;
    std::size_t diverged_at = 0;  // when not followed: the first decision that differed
    // Whether the run left the list before its end (another decision, or the run ended
    // first); a run that goes on past the list's end has not.
    bool left_list = false;
};
DecidedRun run_decisions(const Case& value, const std::vector<sim::Decision>& decisions, RunSettings settings = {});

}  // namespace moq::properties
