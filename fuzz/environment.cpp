// The environment moqsim sweep reads (cli/options.hpp, cli/shard.hpp): MOQ_SEED,
// MOQ_<SUITE>_CASES, and the shard from any engine's variables: GTEST_TOTAL_SHARDS /
// GTEST_SHARD_INDEX, TEST_TOTAL_SHARDS / TEST_SHARD_INDEX, JOB_COMPLETION_INDEX /
// MOQSIM_SHARD_COUNT (Kubernetes), SLURM_ARRAY_TASK_ID / SLURM_ARRAY_TASK_COUNT with
// SLURM_ARRAY_TASK_MIN and SLURM_ARRAY_TASK_STEP (Slurm). The input is lines NAME=VALUE (a
// value ends at a NUL byte, as in a real environment; an empty one is unset). A refusal
// (UsageError) is the answer to a bad value. A finding: any other exception, a crash, a
// sanitizer report, a hang; options that break what the sweep relies on
// (fuzz/sweep_options.hpp); a shard that, set again as any engine prints it, reads as
// another, or that another engine naming a different shard beside it does not make a
// refusal.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fuzz/support.hpp"
#include "fuzz/sweep_options.hpp"
#include "runner/args.hpp"
#include "runner/options.hpp"

using moq::fuzz::require;

namespace {

using Variables = std::map<std::string, std::string>;

moq::runner::Environment lookup(const Variables& variables) {
    return [&variables](const std::string& name) -> std::optional<std::string> {
        const auto found = variables.find(name);
        if (found == variables.end() || found->second.empty()) return std::nullopt;
        return found->second;
    };
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    Variables variables;
    for (const std::string& line : moq::fuzz::split(moq::fuzz::as_text(data, size), "\n")) {
        const std::size_t equals = line.find('=');
        if (equals == std::string::npos) continue;
        const std::string value = line.substr(equals + 1);
        variables[line.substr(0, equals)] = value.substr(0, value.find('\0'));
    }
    moq::runner::SweepOptions options;
    try {
        options = moq::runner::parse_sweep_options(moq::runner::Given{}, lookup(variables));
    } catch (const moq::runner::UsageError&) {
        return 0;
    }
    moq::fuzz::check_sweep_options(options);
    const moq::runner::Shard shard = options.shard;
    // The shard as each engine would set it; Slurm's from a task ID of 1 up (--array=1-N).
    const std::vector<Variables> engines{
        {{"GTEST_TOTAL_SHARDS", std::to_string(shard.total)}, {"GTEST_SHARD_INDEX", std::to_string(shard.index)}},
        {{"TEST_TOTAL_SHARDS", std::to_string(shard.total)}, {"TEST_SHARD_INDEX", std::to_string(shard.index)}},
        {{"MOQSIM_SHARD_COUNT", std::to_string(shard.total)}, {"JOB_COMPLETION_INDEX", std::to_string(shard.index)}},
        {{"SLURM_ARRAY_TASK_COUNT", std::to_string(shard.total)},
         {"SLURM_ARRAY_TASK_ID", std::to_string(shard.index + 1)},
         {"SLURM_ARRAY_TASK_MIN", "1"}}};
    Variables all;
    for (const Variables& engine : engines) {
        const moq::runner::Shard again = moq::runner::shard_from_environment(lookup(engine));
        require(again.index == shard.index && again.total == shard.total, "a shard printed back reads as another");
        all.insert(engine.begin(), engine.end());
    }
    // Every engine at once, agreeing: the same shard.
    const moq::runner::Shard agreed = moq::runner::shard_from_environment(lookup(all));
    require(agreed.index == shard.index && agreed.total == shard.total, "engines that agree read as another shard");
    // The input's variables with the Kubernetes pair naming another shard: refused if
    // another engine's variables are set (they name `shard`), else that shard alone.
    if (shard.total < moq::runner::max_shards) {
        Variables changed = variables;
        changed["JOB_COMPLETION_INDEX"] = std::to_string(shard.index);
        changed["MOQSIM_SHARD_COUNT"] = std::to_string(shard.total + 1);
        const auto set = lookup(variables);
        const bool others_set = set("GTEST_TOTAL_SHARDS") || set("TEST_TOTAL_SHARDS") || set("SLURM_ARRAY_TASK_COUNT");
        try {
            const moq::runner::Shard alone = moq::runner::shard_from_environment(lookup(changed));
            require(!others_set, "two engines naming different shards were not refused");
            require(alone.index == shard.index && alone.total == shard.total + 1, "a Kubernetes shard read as another");
        } catch (const moq::runner::UsageError&) {
            require(others_set, "a Kubernetes shard alone was refused");
        }
    }
    return 0;
}
