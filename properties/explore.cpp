#include "properties/explore.hpp"

#include "sim/choice_list.hpp"

namespace moq::properties {

sim::ExploreTotals explore_case(const Case& value, const sim::ExploreOptions& options, sim::ExploreState& state,
                                RunSettings settings) {
    settings.keep_trace = false;
    const auto run = [&value, &settings](sim::Decider& decider) {
        RunSettings decided = settings;
        decided.decider = &decider;
        CaseOutcome outcome = value.run(decided);
        return sim::RunVerdict{outcome.ok, std::move(outcome.message), outcome.digest};
    };
    return sim::explore(run, options, state);
}

DecidedRun run_decisions(const Case& value, const std::vector<sim::Decision>& decisions, RunSettings settings) {
    sim::ChoiceList list(decisions);
    settings.decider = &list;
    DecidedRun run;
    run.outcome = value.run(settings);
    const std::optional<std::size_t> diverged = list.diverged_at();
    run.followed = !diverged && list.recorded().size() == decisions.size();
    if (!run.followed) run.diverged_at = diverged.value_or(std::min(list.recorded().size(), decisions.size()));
    run.left_list = diverged.has_value() || list.recorded().size() < decisions.size();
    return run;
}

}  // namespace moq::properties
