// Sweep results, as `moqsim merge` reads (cli/sweep_result.hpp) and joins them
// (cli/sweep_merge.hpp). The input is one or more results, each on its own after a line
// `---`; merged when every one reads. A refusal (UsageError) is the answer to a bad
// result or to shards of different sweeps. A finding: any other exception, a crash, a
// sanitizer report, a hang; a result that reads but, written back as moqsim writes it,
// does not read back equal; a merge whose counts do not add up to its shards', or whose
// written file does not read back equal; merged buckets whose counts are not their
// shards' sum, more of them than the shards had ids, or that no longer read as a sweep's.
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "runner/args.hpp"
#include "runner/buckets.hpp"
#include "runner/sweep_merge.hpp"
#include "runner/sweep_result.hpp"
#include "fuzz/support.hpp"

using moq::fuzz::require;

namespace {

// Every number in `json` finite: a JSON file holds no infinity (nlohmann writes null).
bool all_finite(const nlohmann::json& json) {
    std::vector<const nlohmann::json*> pending{&json};
    while (!pending.empty()) {
        const nlohmann::json& value = *pending.back();
        pending.pop_back();
        if (value.is_number_float() && !std::isfinite(value.get<double>())) return false;
        if (value.is_structured())
            for (const nlohmann::json& element : value) pending.push_back(&element);
    }
    return true;
}

// What the shards added up to, for the merge to be checked against.
struct ShardTotals {
    std::map<std::string, std::uint64_t> runs;  // each suite's runs over the shards merged
    std::set<std::string> ids;                  // every bucket's id over the shards merged
    std::uint64_t bucketed = 0;                 // and their failures

    void add(const nlohmann::json& result) {
        for (const nlohmann::json& suite : result["suites"])
            runs[suite["suite"].get<std::string>()] += suite["run"].get<std::uint64_t>();
        for (const nlohmann::json& bucket : result.value("buckets", nlohmann::json::array())) {
            ids.insert(bucket["id"].get<std::string>());
            bucketed += bucket["count"].get<std::uint64_t>();
        }
    }
};

void check_merged(const nlohmann::json& merged, std::size_t shards, ShardTotals& totals) {
    require(merged["shard"]["merged"] == shards, "the merge counts another number of shards");
    require(merged["shard"]["merged"] == merged["shard"]["total"], "a merge with a shard missing");
    require(merged["suites"].size() == totals.runs.size(), "the merge lists another number of suites");
    const std::uint64_t seeds = merged["seeds"][1].get<std::uint64_t>() - merged["seeds"][0].get<std::uint64_t>() + 1;
    for (const nlohmann::json& suite : merged["suites"]) {
        const auto run = suite["run"].get<std::uint64_t>();
        require(run == totals.runs[suite["suite"].get<std::string>()], "a suite's merged runs are not its shards' sum");
        require(suite["passed"].get<std::uint64_t>() + suite["failed"].get<std::uint64_t>() == run,
                "merged passed and failed do not add up to run");
        require(run <= seeds * suite["cases"].get<std::uint64_t>(), "a merge ran more cases than the sweep has");
    }
    require(merged["buckets"].size() <= totals.ids.size(), "the merge lists more buckets than its shards' ids");
    std::uint64_t merged_bucketed = 0;
    for (const nlohmann::json& bucket : merged["buckets"]) merged_bucketed += bucket["count"].get<std::uint64_t>();
    require(merged_bucketed == totals.bucketed, "the merged buckets' counts are not their shards' sum");
    if (const std::string problem = moq::runner::buckets_problem(merged); !problem.empty())
        moq::fuzz::finding("merged buckets do not read as a sweep's: " + problem);
    require(all_finite(merged), "a merged result holds a number JSON cannot write");
    require(nlohmann::json::parse(merged.dump(1) + "\n") == merged, "the merged result reads back as another");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::vector<std::string> pieces = moq::fuzz::split(moq::fuzz::as_text(data, size), "\n---\n");
    moq::runner::SweepMerge merging;
    bool merging_all = true;
    ShardTotals totals;
    for (std::size_t i = 0; i < pieces.size(); ++i) {
        const std::string label = "result " + std::to_string(i);
        nlohmann::json result;
        try {
            result = moq::runner::parse_sweep_result(pieces[i], label);
        } catch (const moq::runner::UsageError&) {
            merging_all = false;
            continue;
        }
        require(moq::runner::is_sweep_result(result), "a result that reads is not a sweep result");
        const nlohmann::json again = moq::runner::parse_sweep_result(result.dump(1) + "\n", "written " + label);
        require(again == result, "a result written back reads back as another");
        if (!merging_all) continue;
        try {
            merging.add(result, label);
        } catch (const moq::runner::UsageError&) {
            merging_all = false;
            continue;
        }
        totals.add(result);
    }
    if (!merging_all) return 0;
    nlohmann::json merged;
    try {
        merged = merging.finish();
    } catch (const moq::runner::UsageError&) {
        return 0;
    }
    check_merged(merged, pieces.size(), totals);
    return 0;
}
