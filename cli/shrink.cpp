#include "cli/shrink.hpp"

#include "properties/suite.hpp"

namespace moq::cli {

Shrunk shrink(const properties::Case& failing, const properties::RunSettings& settings, const ShrinkLimits& limits) {
    Shrunk result;
    result.outcome = failing.run(settings);
    const auto out_of_time = [&] { return limits.deadline && std::chrono::steady_clock::now() >= *limits.deadline; };
    // Start from a copy of the failing case, through its own shrink tree.
    std::unique_ptr<properties::Case> current;
    const properties::Case* at = &failing;
    while (!out_of_time()) {
        properties::CaseOutcome smaller_outcome;
        auto smaller = at->first_failing_shrink([&](const properties::Case& candidate) {
            // Once out of time, the candidates left are passed over without a run.
            if (out_of_time()) return false;
            smaller_outcome = candidate.run(settings);
            return !smaller_outcome.ok && (!limits.same_failure || limits.same_failure(smaller_outcome));
        });
        if (!smaller) break;
        current = std::move(smaller);
        at = current.get();
        result.outcome = smaller_outcome;
        ++result.steps;
    }
    result.complete = !out_of_time();
    result.smallest = current ? std::move(current) : failing.clone();
    return result;
}

}  // namespace moq::cli
