#include "runner/shrink.hpp"

#include <algorithm>

#include "properties/explore.hpp"
#include "sim/explorer.hpp"

namespace moq::runner {

namespace {

using Clock = std::chrono::steady_clock;

class Shrinker {
public:
    Shrinker(const Failing& failure, const ShrinkLimits& limits) : failure_(failure), limits_(limits) {}

    Shrunk run() {
        Shrunk result;
        result.outcome = failure_.outcome;
        std::unique_ptr<properties::Case> current;
        const properties::Case* at = failure_.value;
        while (!out_of_time()) {
            std::optional<properties::CaseOutcome> taken;
            auto smaller = at->first_failing_shrink([&](const properties::Case& candidate) {
                // Once out of time, the candidates left are passed over without a run.
                if (out_of_time()) return false;
                taken = judge(candidate, result.outcome);
                ++tried_;
                if (taken) ++taken_count_;
                if (limits_.progress) limits_.progress(tried_, taken_count_);
                return taken.has_value();
            });
            if (!smaller) break;
            current = std::move(smaller);
            at = current.get();
            result.outcome = std::move(*taken);
            ++result.steps;
        }
        result.smallest = current ? std::move(current) : failure_.value->clone();
        fewest_preemptions(*result.smallest, result.outcome);
        result.complete = !out_of_time();
        result.schedules = schedules_;
        return result;
    }

private:
    [[nodiscard]] bool out_of_time() const { return limits_.deadline && Clock::now() >= *limits_.deadline; }

    [[nodiscard]] bool counts(const properties::CaseOutcome& outcome) const {
        return !outcome.ok && (!limits_.same_failure || limits_.same_failure(outcome));
    }

    // The failing run of `candidate` the three ways allow, if one fails; `so_far` is the
    // failing run of the case it is smaller than.
    std::optional<properties::CaseOutcome> judge(const properties::Case& candidate,
                                                 const properties::CaseOutcome& so_far) {
        properties::DecidedRun along = properties::run_decisions(candidate, so_far.decisions);
        if (counts(along.outcome)) return std::move(along.outcome);
        // A sweep's failure has a strategy whose runs find it: a run of it costs one run,
        // where an exploration of a candidate that passes costs thousands.
        if (failure_.strategy) {
            properties::CaseOutcome seeded = recorded_run(candidate, properties::RunSettings{*failure_.strategy});
            if (counts(seeded)) return seeded;
            return std::nullopt;
        }
        return explored_failure(candidate, std::min(limits_.explore_bound, so_far.costly_choices));
    }

    // The first failure an exploration of `value` within `bound` finds, as a recorded run.
    std::optional<properties::CaseOutcome> explored_failure(const properties::Case& value, std::uint32_t bound) {
        sim::ExploreOptions options;
        options.bound = bound;
        options.schedule_limit = limits_.schedules_per_candidate;
        options.deadline = limits_.deadline;
        options.keep_going = static_cast<bool>(limits_.same_failure);
        sim::ExploreState state;
        // With a test of the failure, the search goes on past a failure of another kind.
        options.progress = [&state, this](const sim::ExploreTotals&) {
            if (!state.failures.empty() && counts_verdict(state.failures.back().verdict))
                state.end = sim::ExploreEnd::failure;
        };
        properties::explore_case(value, options, state);
        schedules_ += state.totals.schedules;
        for (const sim::ExploredFailure& found : state.failures) {
            if (!counts_verdict(found.verdict)) continue;
            properties::DecidedRun run = properties::run_decisions(value, found.decisions);
            if (counts(run.outcome)) return std::move(run.outcome);
        }
        return std::nullopt;
    }

    [[nodiscard]] bool counts_verdict(const sim::RunVerdict& verdict) const {
        properties::CaseOutcome outcome;
        outcome.ok = verdict.ok;
        outcome.message = verdict.message;
        return counts(outcome);
    }

    // The smallest case's failure at the fewest preemptions an exploration finds below
    // those its run spends.
    void fewest_preemptions(const properties::Case& value, properties::CaseOutcome& outcome) {
        const std::uint32_t spent = outcome.costly_choices;
        for (std::uint32_t bound = 0; bound < std::min(spent, limits_.explore_bound + 1) && !out_of_time(); ++bound) {
            if (std::optional<properties::CaseOutcome> found = explored_failure(value, bound)) {
                if (found->costly_choices < spent) outcome = std::move(*found);
                return;
            }
        }
    }

    const Failing& failure_;
    const ShrinkLimits& limits_;
    std::size_t tried_ = 0;
    std::size_t taken_count_ = 0;
    std::uint64_t schedules_ = 0;
};

}  // namespace

Shrunk shrink(const Failing& failure, const ShrinkLimits& limits) { return Shrinker(failure, limits).run(); }

properties::CaseOutcome recorded_run(const properties::Case& value, properties::RunSettings settings) {
    settings.record_decisions = true;
    return value.run(settings);
}

}  // namespace moq::runner
