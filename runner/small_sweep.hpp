// moqsim sweep --ops N: every small case of each chosen suite (properties/small_scope.hpp)
// once per seed, the seed picking each run's schedule; its totals say how many cases
// the scope has, how many a symmetry skipped, and how many ran and failed.
//
//   {"format": "moqsim-small-sweep", "version": 1, "ops": 3, "seeds": [1, 1],
//    "strategy": "random", "mutant": null, "shard": {"index": 0, "total": 1},
//    "suites": [{"suite": "gate", "enumerated": 6660, "symmetric": 0, "visited": 6660,
//                "run": 6660, "passed": 6660, "failed": 0, "seconds": 0.4,
//                "cases_per_second": 16000, "failures": [{"seed": 1, "case": 12,
//                "message": "...", "digest": 123, "replay": "moqsim replay ..."}]}]}
#pragma once

#include "runner/commands.hpp"
#include "runner/options.hpp"

namespace moq::runner {

// The sweep of `options` (whose ops is set, its mutant already switched off).
int small_sweep(const Program& program, const SweepOptions& options);

// The command that replays small case `index` of --ops `ops` with `seed`.
std::string small_replay_command(const Program& program, std::string_view suite, int ops, std::uint64_t index,
                                 std::uint64_t seed, sim::StrategyKind strategy,
                                 const std::optional<std::string>& mutant);

}  // namespace moq::runner
