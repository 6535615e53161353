// moqsim merge: the JSON results of several shards of one sweep as one, their buckets
// joined; or of one exploration's shards, their counts added.
#include <cstdio>

#include <nlohmann/json.hpp>

#include "runner/args.hpp"
#include "runner/buckets.hpp"
#include "runner/commands.hpp"
#include "runner/explore_result.hpp"
#include "runner/json_input.hpp"
#include "runner/options.hpp"
#include "runner/output.hpp"
#include "runner/sweep_merge.hpp"
#include "runner/sweep_result.hpp"

namespace moq::runner {

namespace {

// The explorations' results joined, if the first file is one (-1 otherwise): its line, and
// the merged result where --json says.
int merge_explorations(const MergeOptions& options) {
    std::vector<nlohmann::json> results;
    for (const std::string& path : options.files) {
        results.push_back(parse_json_input(read_input_file(path), path));
        if (!is_explore_result(results.front())) return -1;
    }
    const nlohmann::json merged = merge_explore_results(results, options.files);
    if (options.json_path) write_atomically(*options.json_path, merged.dump(1) + "\n");
    std::printf("explore: %s, bound %s: %s\n  %s schedules from %s of %s shards, %zu failures\n",
                merged["settings"]["case"].get<std::string>().c_str(), merged["settings"]["bound"].dump().c_str(),
                merged["end"].get<std::string>().c_str(), merged["schedules"].dump().c_str(),
                merged["shards"]["merged"].dump().c_str(), merged["shards"]["total"].dump().c_str(),
                merged["failures"].size());
    return merged["failures"].empty() ? 0 : 1;
}

}  // namespace

int merge(const Program& program, const Given& given) {
    const MergeOptions options = parse_merge_options(given);
    if (options.json_path) {
        check_writable(*options.json_path, "--json");
        check_bucket_case_folder(*options.json_path);
    }
    if (const int status = merge_explorations(options); status >= 0) return status;
    SweepMerge merging;
    for (const std::string& path : options.files) merging.add(parse_sweep_result(read_input_file(path), path), path);
    nlohmann::json merged = merging.finish();
    bool failed = false;
    for (const nlohmann::json& suite : merged["suites"]) {
        std::printf("%s: %llu passed, %llu failed (%llu cases from %zu shards)\n",
                    suite["suite"].get<std::string>().c_str(),
                    static_cast<unsigned long long>(suite["passed"].get<std::uint64_t>()),
                    static_cast<unsigned long long>(suite["failed"].get<std::uint64_t>()),
                    static_cast<unsigned long long>(suite["run"].get<std::uint64_t>()), options.files.size());
        failed = failed || suite["failed"].get<std::uint64_t>() != 0;
    }
    // The buckets' smallest cases are kept beside the merged result too, where its replays find them.
    if (options.json_path) {
        write_bucket_cases(merged["buckets"], *options.json_path, program.name);
        write_atomically(*options.json_path, merged.dump(1) + "\n");
    }
    std::fputs(bucket_lines(merged["buckets"]).c_str(), stdout);
    return failed || !merged["buckets"].empty() ? 1 : 0;
}

}  // namespace moq::runner
