#include "cli/shrink.hpp"

#include "properties/suite.hpp"

namespace moq::cli {

Shrunk shrink(const properties::Case& failing, const properties::RunSettings& settings) {
    Shrunk result;
    result.outcome = failing.run(settings);
    // Start from a copy of the failing case, through its own shrink tree.
    std::unique_ptr<properties::Case> current;
    const properties::Case* at = &failing;
    for (;;) {
        properties::CaseOutcome smaller_outcome;
        auto smaller = at->first_failing_shrink([&](const properties::Case& candidate) {
            smaller_outcome = candidate.run(settings);
            return !smaller_outcome.ok;
        });
        if (!smaller) break;
        current = std::move(smaller);
        at = current.get();
        result.outcome = smaller_outcome;
        ++result.steps;
    }
    result.smallest = current ? std::move(current) : failing.clone();
    return result;
}

}  // namespace moq::cli
