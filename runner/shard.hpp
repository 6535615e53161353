// Which share of a sweep this process runs, as the engine that started it says: GoogleTest
// style runners (GTEST_TOTAL_SHARDS / GTEST_SHARD_INDEX, or TEST_TOTAL_SHARDS /
// TEST_SHARD_INDEX, as Bazel sets), a Kubernetes Indexed Job (JOB_COMPLETION_INDEX, with
// the completions count in MOQSIM_SHARD_COUNT, which the Job's manifest sets from
// .spec.completions) and a Slurm job array (SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT,
// counted from SLURM_ARRAY_TASK_MIN in steps of SLURM_ARRAY_TASK_STEP when they are set).
#pragma once

#include <cstdint>
#include <vector>

#include "runner/args.hpp"

namespace moq::runner {

// The most shards one sweep is split into (the environment's shard count, and a sweep
// result's shard.total that merge reads): merge keeps a flag a shard.
inline constexpr std::uint64_t max_shards = 1000000;

struct Shard {
    std::uint64_t index = 0;
    std::uint64_t total = 1;
};

// The shard of this process from `variables`; one shard of one when no engine's variables
// are set. Refused (UsageError): a count that is not a whole number from 1 to max_shards,
// an index that is not one of the count's, an index without its count or the reverse, and
// two engines' variables that name different shards.
Shard shard_from_environment(const Environment& variables);
// Every variable shard_from_environment reads: a program that runs others whole (a
// mutation run's sweeps, a soak's slices) takes them out of their environment.
std::vector<const char*> shard_variables();
// How many of a sweep's `pairs` (seed, case) pairs are `shard`'s: every total-th one from
// its index.
std::uint64_t shard_share(std::uint64_t pairs, const Shard& shard);
// Tells the CI runner this program understood sharding (touches its status file). Called
// once the input is known to be good.
void acknowledge_shard();

}  // namespace moq::runner
