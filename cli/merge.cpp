// moqsim merge: the JSON results of several shards as one.
#include <cstdio>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "cli/output.hpp"

namespace moq::cli {

namespace {

bool is_count(const nlohmann::json& value) { return value.is_number_unsigned(); }

// The fields merge reads, with the types it reads them as.
bool is_sweep_result(const nlohmann::json& shard) {
    if (!shard.is_object() || !shard.contains("format") || shard["format"] != "moqsim-sweep") return false;
    if (!shard.contains("version") || !is_count(shard["version"]) || shard["version"] != 1) return false;
    if (!shard.contains("seeds") || !shard.contains("strategy") || !shard.contains("mutant")) return false;
    if (!shard.contains("shard") || !shard["shard"].is_object()) return false;
    const auto& where = shard["shard"];
    if (!where.contains("index") || !where.contains("total") || !is_count(where["index"]) || !is_count(where["total"]) ||
        where["total"] == 0)
        return false;
    if (!shard.contains("suites") || !shard["suites"].is_array()) return false;
    for (const auto& suite : shard["suites"]) {
        if (!suite.is_object() || !suite.contains("suite") || !suite["suite"].is_string()) return false;
        for (const char* field : {"cases", "run", "passed", "failed"})
            if (!suite.contains(field) || !is_count(suite[field])) return false;
        if (!suite.contains("seconds") || !suite["seconds"].is_number()) return false;
        if (!suite.contains("failures") || !suite["failures"].is_array()) return false;
    }
    return true;
}

}  // namespace

int merge(const Program&, int argc, char** argv) {
    const Flags flags(argc, argv, 2, {"json"}, {});
    if (flags.positional().empty()) throw UsageError("merge needs the shard results to merge");
    const std::optional<std::string> json_path = flags.value("json");
    if (json_path) check_writable(*json_path);

    nlohmann::json merged;
    std::map<std::string, nlohmann::json> suites;
    std::vector<std::string> order;
    std::vector<bool> shards_seen;
    for (const std::string& path : flags.positional()) {
        std::ifstream in(path);
        if (!in) throw UsageError("cannot read " + path);
        nlohmann::json shard;
        try {
            shard = nlohmann::json::parse(in);
        } catch (const nlohmann::json::parse_error&) {
            throw UsageError(path + ": not JSON");
        }
        if (!is_sweep_result(shard)) throw UsageError(path + ": not a moqsim sweep result (version 1)");
        // A result written before --mix existed drew the fixed mix.
        const nlohmann::json mix = shard.value("mix", nlohmann::json("fixed"));
        const nlohmann::json config = {shard["seeds"], shard["strategy"], mix, shard["mutant"], shard["shard"]["total"]};
        if (merged.is_null()) {
            merged = shard;
            merged["suites"] = nlohmann::json::array();
            merged["shard"] = {{"merged", 0}, {"total", shard["shard"]["total"]}};
            shards_seen.assign(shard["shard"]["total"].get<std::size_t>(), false);
        } else if (config != nlohmann::json{merged["seeds"], merged["strategy"], merged.value("mix", nlohmann::json("fixed")),
                                            merged["mutant"], merged["shard"]["total"]}) {
            throw UsageError(path + ": a shard of another sweep (seeds, strategy, mix, mutant or shard count differ)");
        }
        const auto index = shard["shard"]["index"].get<std::size_t>();
        if (index >= shards_seen.size() || shards_seen[index]) throw UsageError(path + ": shard " + std::to_string(index) + " twice");
        shards_seen[index] = true;
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
    const auto missing = std::count(shards_seen.begin(), shards_seen.end(), false);
    if (missing != 0)
        throw UsageError(std::to_string(missing) + " of " + std::to_string(shards_seen.size()) +
                         " shards missing: nothing merged");
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
