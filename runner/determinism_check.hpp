// Same case, same digest, checked by the sweep itself: it runs one case in N twice
// (--recheck N) and, at its end, replays every failure it recorded. Runs of one case that
// give different trace digests are a failure of their own kind, "nondeterministic",
// told with the first event where the two runs part (as `moqsim trace-diff` finds it).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "properties/suite.hpp"

namespace moq::runner {

struct Nondeterminism {
    std::string message;      // "nondeterministic: ..."
    nlohmann::json parted;    // {"digests": [A, B], "event": N, "first": LINE, "second": LINE}
    std::uint64_t steps = 0;  // of the run parted from
};

// Whether case `index` of `seed` is one a sweep with --recheck `every` runs twice: one in
// `every` (0: none), picked by a hash of the pair, so every shard picks the same cases.
bool rechecked(std::uint64_t seed, std::uint64_t index, std::uint64_t every);

// `first` (a run of `value` with its trace kept) against a second such run; nothing when
// both give one digest.
std::optional<Nondeterminism> run_again(const properties::Case& value, const properties::RunSettings& settings,
                                        const properties::CaseOutcome& first);

// A recorded failure replayed: nothing when a run of `value` gives the `recorded` digest;
// otherwise where two further runs part (or that they agree with each other, not with it).
std::optional<Nondeterminism> replay_differs(const properties::Case& value, sim::StrategyKind strategy,
                                             std::uint64_t recorded);

}  // namespace moq::runner
