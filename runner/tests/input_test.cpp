// Unit tests of the runner's input readers (runner/meson.build) where a bad-input
// case cannot look: boundaries, and what the fuzz targets take for granted.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <map>
#include <optional>
#include <string>

#include "runner/args.hpp"
#include "runner/buckets.hpp"
#include "runner/json_input.hpp"
#include "runner/shard.hpp"
#include "runner/sweep_result.hpp"

namespace moq::runner {

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

TEST_CASE("a failure's message gives its rule and the check that caught it") {
    const auto kind = [](const char* message) {
        const FailureKind found = failure_kind(message);
        return found.rule + " " + found.check;
    };
    CHECK(kind("R10: the reader ended with error unroutable, which no end rule allows") == "R10 violated");
    CHECK(kind("missed_wake: R7: missed wake: the reader is parked") == "R7 missed_wake");
    CHECK(kind("missed_wake: viewer 0: R10: missed wake: the reader is parked") == "R10 missed_wake");
    CHECK(kind("viewer 3: W2: the subscriber walked 14 times for 13 wakes") == "W2 violated");
    CHECK(kind("task_failed: a task threw: moq assertion failed at core/kio/waiter_list.cpp:156: schedule point") ==
          "none task_failed");
    CHECK(kind("livelock: advancing the clock fired nothing") == "none livelock");
    CHECK(kind("missed_wake: missed wake: the reader is parked") == "none missed_wake");
    CHECK(kind("nondeterministic: two runs of the case gave digests 1 and 2") == "none nondeterministic");
    // A rule id only among the leading prefixes, not deep in the text.
    CHECK(kind("deadlock: a: b: R1: stuck") == "none deadlock");
    CHECK(kind("missed_wakes: R7: x") == "R7 violated");
}

TEST_CASE("messages that differ only in numbers, one-letter names and parentheses have one shape") {
    CHECK(message_shape("R7: the reader is parked while serving copy C has group 4 for it") ==
          message_shape("R7: the reader is parked while serving copy A has group 12 for it"));
    CHECK(message_shape("T10: the model has group 8 for it (floor 8, aborted groups 2,6,7)") ==
          message_shape("T10: the model has group 0 for it (floor 0)"));
    CHECK(message_shape("T10: the model has error 3, 4 left") == "T#: the model has error #, # left");
    CHECK(message_shape("T10: the model has group 0 for it") != message_shape("T10: the model has a clean end for it"));
}

TEST_CASE("a bucket's id is the same for the same rule, check, suite and signature, and only then") {
    const std::vector<std::string> signature{"update", "land", "serve"};
    // Pinned: ids name the buckets' case files, and a merge joins shards' buckets by id.
    CHECK(bucket_id("R10", "missed_wake", "resume", signature) == "34448bec62d4");
    CHECK(bucket_id("I1", "violated", "gate", {"write"}) == "886b7454bb95");
    CHECK(bucket_id("R7", "missed_wake", "resume", signature) != bucket_id("R10", "missed_wake", "resume", signature));
    CHECK(bucket_id("R10", "violated", "resume", signature) != bucket_id("R10", "missed_wake", "resume", signature));
    CHECK(bucket_id("R10", "missed_wake", "fanout", signature) != bucket_id("R10", "missed_wake", "resume", signature));
    CHECK(bucket_id("R10", "missed_wake", "resume", {"update", "serve", "land"}) !=
          bucket_id("R10", "missed_wake", "resume", signature));
    // Fields are kept apart: moving a letter from one to the next is another id.
    CHECK(bucket_id("R1", "0x", "s", {}) != bucket_id("R10", "x", "s", {}));
}

namespace {

// A gate bucket as a sweep writes one; its smallest case a gate case with no step.
nlohmann::json gate_bucket(std::uint64_t count, std::uint64_t first_seed, std::uint64_t steps, const char* strategy) {
    return {{"id", bucket_id("I1", "violated", "gate", {})},
            {"rule", "I1"},
            {"check", "violated"},
            {"suite", "gate"},
            {"signature", nlohmann::json::array()},
            {"count", count},
            {"strategies", {strategy}},
            {"mixes", {"fixed"}},
            {"first",
             {{"seed", first_seed}, {"case", std::uint64_t{4}}, {"message", "I1: x"}, {"replay", "moqsim replay"}}},
            {"smallest",
             {{"seed", first_seed},
              {"case", std::uint64_t{4}},
              {"steps", steps},
              {"complete", true},
              {"saved",
               {{"format", "moqsim-case"},
                {"version", 2},
                {"suite", "gate"},
                {"case", {{"drive", "woken"}, {"mode", "idle"}, {"seed", 1}, {"steps", nlohmann::json::array()}}}}}}}};
}

}  // namespace

TEST_CASE("buckets of one id join: counts added, names united, the earliest first and the smallest kept") {
    nlohmann::json joined = nlohmann::json::array({gate_bucket(3, 9, 40, "random")});
    nlohmann::json other = gate_bucket(2, 5, 50, "pct");
    other["first"]["message"] = "I1: earlier";
    nlohmann::json another = gate_bucket(1, 7, 20, "random");
    another["id"] = "0123456789ab";
    join_buckets(joined, nlohmann::json::array({other, another}));
    REQUIRE(joined.size() == 2);
    CHECK(joined[0]["count"] == 5);
    CHECK(joined[0]["strategies"] == nlohmann::json({"pct", "random"}));
    CHECK(joined[0]["first"]["message"] == "I1: earlier");  // seed 5 before seed 9
    CHECK(joined[0]["smallest"]["steps"] == 40);            // 40 steps before 50
    CHECK(joined[1]["id"] == "0123456789ab");
}

TEST_CASE("buckets found apart join by their shape; the smaller case keys the joined one") {
    nlohmann::json joined = nlohmann::json::array({gate_bucket(3, 9, 40, "random")});
    joined[0]["shape"] = "I#: a re-poll walked";
    nlohmann::json apart = gate_bucket(2, 5, 10, "random");
    apart["signature"] = {"write"};
    apart["id"] = bucket_id("I1", "violated", "gate", {"write"});
    apart["shape"] = "I#: a re-poll walked";
    nlohmann::json other_shape = apart;
    other_shape["shape"] = "I#: something else";
    join_buckets(joined, nlohmann::json::array({apart}));
    REQUIRE(joined.size() == 1);
    CHECK(joined[0]["count"] == 5);
    CHECK(joined[0]["id"] == apart["id"]);  // 10 steps against 40
    CHECK(joined[0]["signature"] == nlohmann::json({"write"}));
    join_buckets(joined, nlohmann::json::array({other_shape}));
    CHECK(joined.size() == 1);  // its id is the joined bucket's now
    other_shape["id"] = "0123456789ab";
    join_buckets(joined, nlohmann::json::array({other_shape}));
    CHECK(joined.size() == 2);
}

TEST_CASE("a result's buckets are checked field by field; a result without them is read") {
    nlohmann::json result = {{"suites", {{{"suite", "gate"}, {"run", 10}}}}};
    CHECK(buckets_problem(result).empty());
    result["buckets"] = nlohmann::json::array({gate_bucket(10, 1, 3, "random")});
    CHECK(buckets_problem(result) == "");
    result["buckets"][0]["count"] = std::uint64_t{11};
    CHECK(buckets_problem(result).find("buckets[0].count") == 0);
    result["buckets"][0]["count"] = std::uint64_t{10};
    result["buckets"][0]["rule"] = "r1";
    CHECK(buckets_problem(result).find("buckets[0].rule") == 0);
    result["buckets"][0]["rule"] = "I1";
    result["buckets"][0]["smallest"]["complete"] = "yes";
    CHECK(buckets_problem(result) == "buckets[0].smallest.complete: missing or not true or false");
}

}  // namespace moq::runner
