#include "runner/shard.hpp"

#include <fstream>
#include <optional>
#include <string>
#include <vector>

namespace moq::runner {

namespace {

// A shard and the variables that named it, for an error that names two engines.
struct NamedShard {
    std::string names;  // "GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS"
    Shard shard;
};

std::string shard_text(const Shard& shard) {
    return std::to_string(shard.index) + " of " + std::to_string(shard.total);
}

std::uint64_t parse_shard_count(const std::string& text, const char* name) {
    const std::uint64_t total = parse_count(text, name, max_shards);
    if (total == 0) throw UsageError(std::string(name) + " must be at least 1, not '" + text + "'");
    return total;
}

void check_index_in_range(const Shard& shard, const std::string& index_text, const char* total_name) {
    if (shard.index >= shard.total)
        throw UsageError(index_text + " is out of range: " + total_name + " is " + std::to_string(shard.total) +
                         " (indices 0 to " + std::to_string(shard.total - 1) + ")");
}

// The values of an index variable and a count variable that come together: both set or
// neither. `count_hint` says where the count comes from, for when only the index is set.
struct PairedValues {
    std::string total;
    std::string index;
};
std::optional<PairedValues> paired_values(const Environment& variables, const char* total_name, const char* index_name,
                                          const char* count_hint = "") {
    const auto total = variables(total_name);
    const auto index = variables(index_name);
    if (!total && index)
        throw UsageError(std::string(index_name) + " is set but " + total_name + " is not" + count_hint);
    if (total && !index) throw UsageError(std::string(total_name) + " is set but " + index_name + " is not");
    if (!total) return std::nullopt;
    return PairedValues{*total, *index};
}

// A count and a zero-based index.
std::optional<NamedShard> shard_from_pair(const Environment& variables, const char* total_name, const char* index_name,
                                          const char* count_hint = "") {
    const auto values = paired_values(variables, total_name, index_name, count_hint);
    if (!values) return std::nullopt;
    Shard shard;
    shard.total = parse_shard_count(values->total, total_name);
    shard.index = parse_count(values->index, index_name, UINT64_MAX);
    check_index_in_range(shard, std::string(index_name) + " " + values->index, total_name);
    return NamedShard{std::string(index_name) + "/" + total_name, shard};
}

// A Slurm job array: task IDs run from SLURM_ARRAY_TASK_MIN (0 unless set) in steps of
// SLURM_ARRAY_TASK_STEP (1 unless set), so `--array=1-8` is indices 0 to 7.
std::optional<NamedShard> slurm_shard(const Environment& variables) {
    const char* const id_name = "SLURM_ARRAY_TASK_ID";
    const char* const count_name = "SLURM_ARRAY_TASK_COUNT";
    const auto values = paired_values(variables, count_name, id_name);
    if (!values) return std::nullopt;
    Shard shard;
    shard.total = parse_shard_count(values->total, count_name);
    const std::uint64_t id = parse_count(values->index, id_name, UINT64_MAX);
    std::uint64_t min = 0;
    if (const auto text = variables("SLURM_ARRAY_TASK_MIN"))
        min = parse_count(*text, "SLURM_ARRAY_TASK_MIN", UINT64_MAX);
    std::uint64_t step = 1;
    if (const auto text = variables("SLURM_ARRAY_TASK_STEP")) {
        step = parse_count(*text, "SLURM_ARRAY_TASK_STEP", UINT64_MAX);
        if (step == 0) throw UsageError("SLURM_ARRAY_TASK_STEP must be at least 1, not '" + *text + "'");
    }
    const std::string id_text = std::string(id_name) + " " + values->index;
    if (id < min) throw UsageError(id_text + " is below SLURM_ARRAY_TASK_MIN " + std::to_string(min));
    if ((id - min) % step != 0)
        throw UsageError(id_text + " is not SLURM_ARRAY_TASK_MIN " + std::to_string(min) +
                         " plus a multiple of SLURM_ARRAY_TASK_STEP " + std::to_string(step));
    shard.index = (id - min) / step;
    check_index_in_range(
        shard,
        id_text + " (index " + std::to_string(shard.index) + " from SLURM_ARRAY_TASK_MIN " + std::to_string(min) + ")",
        count_name);
    return NamedShard{std::string(id_name) + "/" + count_name, shard};
}

}  // namespace

Shard shard_from_environment(const Environment& variables) {
    std::vector<NamedShard> named;
    for (auto found : {shard_from_pair(variables, "GTEST_TOTAL_SHARDS", "GTEST_SHARD_INDEX"),
                       shard_from_pair(variables, "TEST_TOTAL_SHARDS", "TEST_SHARD_INDEX"),
                       shard_from_pair(variables, "MOQSIM_SHARD_COUNT", "JOB_COMPLETION_INDEX",
                                       " (an Indexed Job sets it from .spec.completions in its manifest: "
                                       "deploy/kubernetes/sweep-job.yaml)"),
                       slurm_shard(variables)})
        if (found) named.push_back(std::move(*found));
    for (const NamedShard& other : named)
        if (other.shard.index != named.front().shard.index || other.shard.total != named.front().shard.total)
            throw UsageError(named.front().names + " say shard " + shard_text(named.front().shard) + " but " +
                             other.names + " say " + shard_text(other.shard));
    return named.empty() ? Shard{} : named.front().shard;
}

std::vector<const char*> shard_variables() {
    return {"GTEST_TOTAL_SHARDS",   "GTEST_SHARD_INDEX",    "TEST_TOTAL_SHARDS",   "TEST_SHARD_INDEX",
            "MOQSIM_SHARD_COUNT",   "JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT",
            "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_STEP"};
}

std::uint64_t shard_share(std::uint64_t pairs, const Shard& shard) {
    return pairs / shard.total + (shard.index < pairs % shard.total ? 1 : 0);
}

void acknowledge_shard() {
    for (const char* status : {"GTEST_SHARD_STATUS_FILE", "TEST_SHARD_STATUS_FILE"})
        if (const auto path = environment(status)) std::ofstream(*path).flush();
}

}  // namespace moq::runner
