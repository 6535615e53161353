#include "properties/explore.hpp"

#include "sim/choice_list.hpp"

namespace moq::properties {

namespace {

// Asks the explorer's decider with each point's default moved to the recorded run's choice,
// while the run meets the points that run met.
class Around final : public sim::Decider {
public:
    Around(sim::Decider& inner, const std::vector<sim::Decision>& recorded) : inner_(inner), recorded_(recorded) {}

    std::uint32_t choose(const sim::DecisionPoint& point) override {
        const std::size_t at = asked_++;
        if (parted_ || at >= recorded_.size()) return inner_.choose(point);
        const sim::Decision& made = recorded_[at];
        if (made.kind != point.kind || made.options != point.options) {
            parted_ = true;
            return inner_.choose(point);
        }
        sim::DecisionPoint moved = point;
        moved.fallback = made.choice;
        return inner_.choose(moved);
    }
    void spawned(std::uint32_t task) override { inner_.spawned(task); }
    void touched(const void* object) override { inner_.touched(object); }
    void touched_task(std::uint32_t task) override { inner_.touched_task(task); }
    [[nodiscard]] bool wants_footprints() const override { return inner_.wants_footprints(); }
    [[nodiscard]] bool wants_state() const override { return inner_.wants_state(); }

private:
    sim::Decider& inner_;
    const std::vector<sim::Decision>& recorded_;
    std::size_t asked_ = 0;
    bool parted_ = false;
};

}  // namespace

sim::ExploreTotals explore_case(const Case& value, const sim::ExploreOptions& options, sim::ExploreState& state,
                                RunSettings settings, const std::vector<sim::Decision>& around) {
    settings.keep_trace = false;
    const auto run = [&value, &settings, &around](sim::Decider& decider) {
        RunSettings decided = settings;
        Around moved(decider, around);
        decided.decider = around.empty() ? &decider : static_cast<sim::Decider*>(&moved);
        CaseOutcome outcome = value.run(decided);
        return sim::RunVerdict{outcome.ok, std::move(outcome.message), outcome.digest};
    };
    return sim::explore(run, options, state);
}

DecidedRun run_decisions(const Case& value, const std::vector<sim::Decision>& decisions, RunSettings settings) {
    sim::ChoiceList list(decisions);
    settings.decider = &list;
    settings.record_decisions = true;
    DecidedRun run;
    run.outcome = value.run(settings);
    const std::optional<std::size_t> diverged = list.diverged_at();
    run.followed = !diverged && list.recorded().size() == decisions.size();
    if (!run.followed) run.diverged_at = diverged.value_or(std::min(list.recorded().size(), decisions.size()));
    run.left_list = diverged.has_value() || list.recorded().size() < decisions.size();
    return run;
}

}  // namespace moq::properties
