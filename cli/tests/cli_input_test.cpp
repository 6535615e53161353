// Unit tests of the CLI's input library (cli/meson.build, moq_cli_input) where a bad-input
// case cannot look: boundaries, and what the fuzz targets take for granted.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <map>
#include <optional>
#include <string>

#include "cli/args.hpp"
#include "cli/json_input.hpp"
#include "cli/shard.hpp"
#include "cli/sweep_result.hpp"

namespace moq::cli {

TEST_CASE("shard_share counts the pairs a sweep's loop gives the shard") {
    // The loop of cli/sweep.cpp: every total-th pair from the index. Merge refuses a run
    // count past shard_share, so the two must agree.
    for (std::uint64_t total = 1; total <= 7; ++total) {
        for (std::uint64_t pairs = 0; pairs <= 40; ++pairs) {
            std::uint64_t all = 0;
            for (std::uint64_t index = 0; index < total; ++index) {
                std::uint64_t visited = 0;
                for (std::uint64_t ordinal = index; ordinal < pairs; ordinal += total) ++visited;
                CHECK(shard_share(pairs, Shard{index, total}) == visited);
                all += visited;
            }
            CHECK(all == pairs);
        }
    }
}

TEST_CASE("parse_json_input reads 32 levels of nesting and refuses 33") {
    const auto nested = [](int levels) { return std::string(levels, '[') + std::string(levels, ']'); };
    CHECK(parse_json_input(nested(max_json_nesting), "in.json").is_array());
    CHECK_THROWS_WITH_AS(parse_json_input(nested(max_json_nesting + 1), "in.json"),
                         "in.json: JSON nested deeper than 32 levels", UsageError);
    CHECK_THROWS_WITH_AS(parse_json_input("{\"a\":" + nested(max_json_nesting) + "}", "in.json"),
                         "in.json: JSON nested deeper than 32 levels", UsageError);
}

TEST_CASE("parse_json_input names the file of a number past a double's range") {
    CHECK_THROWS_WITH_AS(parse_json_input("[1e400]", "huge.json"),
                         doctest::Contains("huge.json: a number out of range"), UsageError);
    CHECK_THROWS_WITH_AS(parse_json_input("[1", "cut.json"), doctest::Contains("cut.json: not JSON"), UsageError);
}

namespace {

Environment variables(std::map<std::string, std::string> values) {
    return [values = std::move(values)](const std::string& name) -> std::optional<std::string> {
        const auto found = values.find(name);
        if (found == values.end()) return std::nullopt;
        return found->second;
    };
}

bool is_shard(const Shard& shard, std::uint64_t index, std::uint64_t total) {
    return shard.index == index && shard.total == total;
}

}  // namespace

TEST_CASE("a Slurm array's task IDs count from its minimum in its steps") {
    // sbatch --array=1-8: IDs 1 to 8 are shards 0 to 7.
    CHECK(is_shard(shard_from_environment(variables(
                       {{"SLURM_ARRAY_TASK_ID", "8"}, {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_COUNT", "8"}})),
                   7, 8));
    // --array=10-16:2: IDs 10, 12, 14 and 16.
    CHECK(is_shard(shard_from_environment(variables({{"SLURM_ARRAY_TASK_ID", "14"},
                                                     {"SLURM_ARRAY_TASK_MIN", "10"},
                                                     {"SLURM_ARRAY_TASK_STEP", "2"},
                                                     {"SLURM_ARRAY_TASK_COUNT", "4"}})),
                   2, 4));
    // Without a minimum, the ID is the index.
    CHECK(is_shard(shard_from_environment(variables({{"SLURM_ARRAY_TASK_ID", "0"}, {"SLURM_ARRAY_TASK_COUNT", "2"}})),
                   0, 2));
    CHECK_THROWS_AS(shard_from_environment(variables({{"SLURM_ARRAY_TASK_ID", "8"}, {"SLURM_ARRAY_TASK_COUNT", "8"}})),
                    UsageError);
}

TEST_CASE("engines that name the same shard agree; different shards are refused") {
    const std::map<std::string, std::string> kubernetes{{"JOB_COMPLETION_INDEX", "2"}, {"MOQSIM_SHARD_COUNT", "4"}};
    CHECK(is_shard(shard_from_environment(variables(kubernetes)), 2, 4));
    auto both = kubernetes;
    both.insert({{"GTEST_TOTAL_SHARDS", "4"}, {"GTEST_SHARD_INDEX", "2"}});
    CHECK(is_shard(shard_from_environment(variables(both)), 2, 4));
    both["GTEST_SHARD_INDEX"] = "3";
    CHECK_THROWS_WITH_AS(shard_from_environment(variables(both)),
                         "GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS say shard 3 of 4 but "
                         "JOB_COMPLETION_INDEX/MOQSIM_SHARD_COUNT say 2 of 4",
                         UsageError);
    CHECK(is_shard(shard_from_environment(variables({})), 0, 1));
}

TEST_CASE("parse_duration reads seconds, minutes and hours up to 30 days") {
    CHECK(parse_duration("90s", "--duration") == 90);
    CHECK(parse_duration("10m", "--duration") == 600);
    CHECK(parse_duration("2h", "--duration") == 7200);
    CHECK(parse_duration("720h", "--duration") == max_duration_seconds);
    CHECK(parse_duration("2592000s", "--duration") == max_duration_seconds);
    for (const char* bad : {"721h", "2592001s", "0s", "10", "h", "1.5h", "-1m", "1 m", "1M", ""})
        CHECK_THROWS_AS(parse_duration(bad, "--duration"), UsageError);
}

TEST_CASE("a suite's cases digest does not depend on the order its cases ran in") {
    const auto shares = [](std::uint64_t seed) {
        nlohmann::json suite = sweep_suite_result("gate", 4, 0, 0, 0, 0, nlohmann::json::array());
        for (std::uint64_t index = 0; index < 4; ++index)
            add_suite_result(suite,
                             sweep_suite_result("gate", 4, 1, 0, 0.5, case_fingerprint(seed, index, true, index * 7),
                                                nlohmann::json::array()));
        return suite;
    };
    std::uint64_t sum = 0;
    for (std::uint64_t index = 4; index-- > 0;) sum += case_fingerprint(1, index, true, index * 7);
    CHECK(shares(1)["cases_digest"] == sweep_suite_result("gate", 4, 4, 0, 2, sum, {})["cases_digest"]);
    CHECK(shares(1)["run"] == 4);
    // Another seed, verdict or trace digest: another share.
    CHECK(case_fingerprint(1, 0, true, 0) != case_fingerprint(2, 0, true, 0));
    CHECK(case_fingerprint(1, 0, true, 0) != case_fingerprint(1, 0, false, 0));
    CHECK(case_fingerprint(1, 0, true, 0) != case_fingerprint(1, 0, true, 1));
    CHECK(case_fingerprint(1, 0, true, 0) != case_fingerprint(0, 1, true, 0));
}

}  // namespace moq::cli
