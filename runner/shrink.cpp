#include "runner/shrink.hpp"

#include "properties/suite.hpp"

namespace moq::runner {

Shrunk shrink_by(const properties::Case& failing, properties::CaseOutcome outcome, const CandidateRun& run_candidate,
                 const ShrinkLimits& limits) {
    Shrunk result;
    result.outcome = std::move(outcome);
    const auto out_of_time = [&] { return limits.deadline && std::chrono::steady_clock::now() >= *limits.deadline; };
    // Start from a copy of the failing case, through its own shrink tree.
    std::unique_ptr<properties::Case> current;
    const properties::Case* at = &failing;
    while (!out_of_time()) {
        properties::CaseOutcome smaller_outcome;
        auto smaller = at->first_failing_shrink([&](const properties::Case& candidate) {
            // Once out of time, the candidates left are passed over without a run.
            if (out_of_time()) return false;
            std::optional<properties::CaseOutcome> failed = run_candidate(candidate);
            if (!failed || (limits.same_failure && !limits.same_failure(*failed))) return false;
            smaller_outcome = std::move(*failed);
            return true;
        });
        if (!smaller) break;
        current = std::move(smaller);
        at = current.get();
        result.outcome = std::move(smaller_outcome);
        ++result.steps;
    }
    result.complete = !out_of_time();
    result.smallest = current ? std::move(current) : failing.clone();
    return result;
}

Shrunk shrink(const properties::Case& failing, const properties::RunSettings& settings, const ShrinkLimits& limits) {
    const auto run_candidate =
        [&settings](const properties::Case& candidate) -> std::optional<properties::CaseOutcome> {
        properties::CaseOutcome outcome = candidate.run(settings);
        if (outcome.ok) return std::nullopt;
        return outcome;
    };
    return shrink_by(failing, failing.run(settings), run_candidate, limits);
}

}  // namespace moq::runner
