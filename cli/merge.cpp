// moqsim merge: the JSON results of several shards of one sweep as one.
#include <algorithm>
#include <cstdio>
#include <map>

#include <nlohmann/json.hpp>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "cli/sweep_result.hpp"

namespace moq::cli {

namespace {

// "1, 3 and 4" for the shards no file gave (the first ten of them).
std::string missing_shards(const std::vector<std::string>& from_file) {
    std::vector<std::size_t> missing;
    for (std::size_t index = 0; index < from_file.size(); ++index)
        if (from_file[index].empty()) missing.push_back(index);
    std::string text;
    const std::size_t named = std::min<std::size_t>(missing.size(), 10);
    for (std::size_t i = 0; i < named; ++i)
        text += (i == 0 ? "" : i + 1 == named && named == missing.size() ? " and " : ", ") + std::to_string(missing[i]);
    if (named < missing.size()) text += " and " + std::to_string(missing.size() - named) + " more";
    return (missing.size() == 1 ? "shard " : "shards ") + text + " of " + std::to_string(from_file.size()) +
           (missing.size() == 1 ? " is" : " are") + " missing: nothing merged";
}

}  // namespace

int merge(const Program&, int argc, char** argv) {
    const Flags flags(argc, argv, 2, {"json"}, {});
    if (flags.positional().empty()) throw UsageError("merge needs the shard results to merge");
    const std::optional<std::string> json_path = flags.value("json");
    if (json_path) check_writable(*json_path, "--json");

    nlohmann::json merged;
    nlohmann::json first;  // the first shard as read: every other must be of its sweep
    std::string first_path;
    std::map<std::string, nlohmann::json> suites;
    std::vector<std::string> order;
    std::vector<std::string> shard_files;  // the file each shard came from, by index
    for (const std::string& path : flags.positional()) {
        const nlohmann::json shard = parse_sweep_result(read_input_file(path), path);
        if (merged.is_null()) {
            merged = shard;
            first = shard;
            first_path = path;
            merged["suites"] = nlohmann::json::array();
            merged["shard"] = {{"merged", 0}, {"total", shard["shard"]["total"]}};
            shard_files.assign(shard["shard"]["total"].get<std::size_t>(), std::string());
        } else if (const std::string difference = sweep_difference(shard, path, first, first_path);
                   !difference.empty()) {
            // NOLINTNEXTLINE(performance-inefficient-string-concatenation): built once, then thrown
            throw UsageError(path + " and " + first_path + " are shards of different sweeps: " + difference);
        }
        const auto index = shard["shard"]["index"].get<std::size_t>();
        if (!shard_files[index].empty())
            throw UsageError(path + ": shard " + std::to_string(index) + " of " + std::to_string(shard_files.size()) +
                             " again (" + shard_files[index] + " is that shard)");
        shard_files[index] = path;
        merged["shard"]["merged"] = merged["shard"]["merged"].get<std::size_t>() + 1;
        for (const nlohmann::json& suite : shard["suites"]) {
            const std::string name = suite["suite"].get<std::string>();
            if (!suites.contains(name)) {
                order.push_back(name);
                suites[name] = suite;
                continue;
            }
            nlohmann::json& total = suites[name];
            for (const char* field : {"run", "passed", "failed"})
                total[field] = total[field].get<std::uint64_t>() + suite[field].get<std::uint64_t>();
            total["seconds"] = total["seconds"].get<double>() + suite["seconds"].get<double>();
            for (const nlohmann::json& failure : suite["failures"]) total["failures"].push_back(failure);
        }
    }
    if (std::count(shard_files.begin(), shard_files.end(), std::string()) != 0)
        throw UsageError(missing_shards(shard_files));
    bool failed = false;
    for (const std::string& name : order) {
        nlohmann::json& suite = suites[name];
        const double seconds = suite["seconds"].get<double>();
        suite["cases_per_second"] = seconds > 0 ? suite["run"].get<double>() / seconds : 0.0;
        std::printf("%s: %llu passed, %llu failed (%llu cases from %zu shards)\n", name.c_str(),
                    static_cast<unsigned long long>(suite["passed"].get<std::uint64_t>()),
                    static_cast<unsigned long long>(suite["failed"].get<std::uint64_t>()),
                    static_cast<unsigned long long>(suite["run"].get<std::uint64_t>()), flags.positional().size());
        failed = failed || suite["failed"].get<std::uint64_t>() != 0;
        merged["suites"].push_back(suite);
    }
    if (json_path) write_atomically(*json_path, merged.dump(1) + "\n");
    return failed ? 1 : 0;
}

}  // namespace moq::cli
