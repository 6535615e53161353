// moqsim merge: the JSON results of several shards of one sweep as one, their buckets joined.
#include <cstdio>

#include <nlohmann/json.hpp>

#include "cli/args.hpp"
#include "cli/buckets.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "cli/sweep_merge.hpp"
#include "cli/sweep_result.hpp"

namespace moq::cli {

int merge(const Program& program, const std::vector<std::string>& arguments) {
    const MergeOptions options = parse_merge_options(arguments);
    if (options.json_path) {
        check_writable(*options.json_path, "--json");
        check_bucket_case_folder(*options.json_path);
    }
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

}  // namespace moq::cli
