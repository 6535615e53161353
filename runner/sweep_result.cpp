#include "runner/sweep_result.hpp"

#include <cstdio>
#include <optional>
#include <set>

#include "runner/args.hpp"
#include "runner/buckets.hpp"
#include "runner/json_input.hpp"
#include "runner/shard.hpp"
#include "runner/timed_sweep.hpp"
#include "properties/suite.hpp"
#include "properties/swarm.hpp"
#include "sim/random.hpp"
#include "sim/seed_range.hpp"
#include "sim/strategy.hpp"

namespace moq::runner {

namespace {

// A digest as digest_text writes it: 16 lowercase hexadecimal digits.
std::optional<std::uint64_t> parse_digest_text(const nlohmann::json& value) {
    if (!value.is_string()) return std::nullopt;
    const std::string& text = value.get_ref<const std::string&>();
    if (text.size() != 16 || text.find_first_not_of("0123456789abcdef") != std::string::npos) return std::nullopt;
    return std::stoull(text, nullptr, 16);
}

// `value` as a whole number in [low, high], or why not.
std::string count_problem(const nlohmann::json& object, const char* field, const std::string& name, std::uint64_t low,
                          std::uint64_t high) {
    if (!object.contains(field)) return name + ": missing";
    const nlohmann::json& value = object[field];
    if (!value.is_number_unsigned()) return name + ": " + value.dump() + " is not a whole number";
    const auto number = value.get<std::uint64_t>();
    if (number < low || number > high)
        return name + ": " + std::to_string(number) + " is out of range (" + std::to_string(low) + " to " +
               std::to_string(high) + ")";
    return {};
}

std::string name_problem(const nlohmann::json& object, const char* field, bool known) {
    if (!object.contains(field)) return std::string(field) + ": missing";
    if (!object[field].is_string()) return std::string(field) + ": " + object[field].dump() + " is not a string";
    if (!known) return std::string(field) + ": unknown " + field + " " + object[field].dump();
    return {};
}

bool known_strategy(const nlohmann::json& value) {
    return value.is_string() && sim::parse_strategy(value.get<std::string>());
}
bool known_mix(const nlohmann::json& value) {
    return value.is_string() && properties::parse_mix(value.get<std::string>());
}
bool known_suite(const nlohmann::json& value) {
    return value.is_string() && properties::find_suite(value.get<std::string>()) != nullptr;
}

// What a sweep measures a suite's time in: 0 (too fast for the clock) or a nanosecond
// to about 30 years. Within it, a rate (run / seconds) and a merge's sum of a million
// shards' times stay numbers JSON can hold.
constexpr double min_seconds = 1e-9;
constexpr double max_seconds = 1e9;

// One entry of "suites"; its run counts are at most `shard`'s share of `seeds` × cases.
std::string suite_problem(const nlohmann::json& suite, const std::string& where, std::uint64_t seeds,
                          const Shard& shard) {
    if (!suite.is_object()) return where + ": not an object";
    if (auto problem = name_problem(suite, "suite", known_suite(suite.value("suite", nlohmann::json())));
        !problem.empty())
        return where + "." + problem;
    if (auto problem = count_problem(suite, "cases", where + ".cases", 1, max_cases); !problem.empty()) return problem;
    // Exactly the pairs the sweep gives this shard: the shards of one sweep never add up
    // to more runs than it has.
    const std::uint64_t share = shard_share(seeds * suite["cases"].get<std::uint64_t>(), shard);
    for (const char* field : {"run", "passed", "failed"})
        if (auto problem = count_problem(suite, field, where + "." + field, 0, share); !problem.empty()) return problem;
    if (suite["passed"].get<std::uint64_t>() + suite["failed"].get<std::uint64_t>() !=
        suite["run"].get<std::uint64_t>())
        return where + ": passed " + suite["passed"].dump() + " and failed " + suite["failed"].dump() +
               " do not add up to run " + suite["run"].dump();
    const nlohmann::json seconds = suite.value("seconds", nlohmann::json());
    const double time = seconds.is_number() ? seconds.get<double>() : -1;
    if (time != 0 && !(time >= min_seconds && time <= max_seconds))
        return where + ".seconds: " + seconds.dump() + " is not a duration (0, or 1e-09 to 1e+09 seconds)";
    if (!suite.contains("failures") || !suite["failures"].is_array()) return where + ".failures: not a list";
    if (suite.contains("cases_digest") && !parse_digest_text(suite["cases_digest"]))
        return where + ".cases_digest: " + suite["cases_digest"].dump() + " is not 16 hexadecimal digits";
    return {};
}

}  // namespace

std::string digest_text(std::uint64_t digest) {
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(digest));
    return text;
}

nlohmann::json new_sweep_result(const nlohmann::json& settings) {
    nlohmann::json result = {{"format", "moqsim-sweep"}, {"version", 1}};
    result.update(settings);
    result["suites"] = nlohmann::json::array();
    return result;
}

nlohmann::json sweep_suite_result(std::string_view suite, std::uint64_t cases, std::uint64_t run, std::uint64_t failed,
                                  double seconds, std::uint64_t cases_digest, nlohmann::json failures) {
    return {{"suite", suite},
            {"cases", cases},
            {"run", run},
            {"passed", run - failed},
            {"failed", failed},
            {"seconds", seconds},
            {"cases_per_second", cases_per_second(run, seconds)},
            {"cases_digest", digest_text(cases_digest)},
            {"failures", std::move(failures)}};
}

std::uint64_t case_fingerprint(std::uint64_t seed, std::uint64_t index, bool passed, std::uint64_t digest) {
    // splitmix64's finaliser over each field in turn: every input bit moves every output bit.
    std::uint64_t state = sim::splitmix64_gamma;
    for (const std::uint64_t field : {seed, index, std::uint64_t{passed}, digest})
        state = sim::splitmix64_mix(state ^ sim::splitmix64_mix(field));
    return state;
}

void add_suite_result(nlohmann::json& total, const nlohmann::json& more) {
    for (const char* field : {"run", "passed", "failed"})
        total[field] = total[field].get<std::uint64_t>() + more[field].get<std::uint64_t>();
    total["seconds"] = total["seconds"].get<double>() + more["seconds"].get<double>();
    total["cases_per_second"] = cases_per_second(total["run"].get<std::uint64_t>(), total["seconds"].get<double>());
    // A result written before cases had a digest has none: neither has the sum.
    const auto digest = [](const nlohmann::json& suite) {
        return suite.contains("cases_digest") ? parse_digest_text(suite["cases_digest"]) : std::nullopt;
    };
    const auto mine = digest(total);
    const auto theirs = digest(more);
    if (mine && theirs) {
        total["cases_digest"] = digest_text(*mine + *theirs);
    } else {
        total.erase("cases_digest");
    }
    for (const nlohmann::json& failure : more["failures"]) total["failures"].push_back(failure);
}

double cases_per_second(std::uint64_t run, double seconds) {
    return seconds > 0 ? static_cast<double>(run) / seconds : 0.0;
}

std::string sweep_result_problem(const nlohmann::json& result) {
    if (!result.is_object()) return "not a JSON object";
    if (!result.contains("format") || result["format"] != "moqsim-sweep")
        return "format: " + result.value("format", nlohmann::json()).dump() + " is not \"moqsim-sweep\"";
    if (!result.contains("version") || result["version"] != 1)
        return "version: unknown version " + result.value("version", nlohmann::json()).dump() +
               " (this moqsim reads version 1)";
    const nlohmann::json seeds = result.value("seeds", nlohmann::json());
    if (!seeds.is_array() || seeds.size() != 2 || !seeds[0].is_number_unsigned() || !seeds[1].is_number_unsigned() ||
        seeds[1].get<std::uint64_t>() < seeds[0].get<std::uint64_t>() ||
        seeds[1].get<std::uint64_t>() - seeds[0].get<std::uint64_t>() >= sim::max_seed_range)
        return "seeds: " + seeds.dump() + " is not a seed range [first, last]";
    if (auto problem = name_problem(result, "strategy", known_strategy(result.value("strategy", nlohmann::json())));
        !problem.empty())
        return problem;
    if (result.contains("mix") && !known_mix(result["mix"])) return "mix: unknown mix " + result["mix"].dump();
    if (!result.contains("mutant") || !(result["mutant"].is_null() || result["mutant"].is_string()))
        return "mutant: " + result.value("mutant", nlohmann::json()).dump() + " is neither null nor a name";
    if (!result.contains("shard") || !result["shard"].is_object()) return "shard: missing or not an object";
    const nlohmann::json& shard = result["shard"];
    if (auto problem = count_problem(shard, "total", "shard.total", 1, max_shards); !problem.empty()) return problem;
    const auto total = shard["total"].get<std::uint64_t>();
    if (auto problem = count_problem(shard, "index", "shard.index", 0, total - 1); !problem.empty()) return problem;
    const Shard shard_of_result{shard["index"].get<std::uint64_t>(), total};
    if (!result.contains("suites") || !result["suites"].is_array() || result["suites"].empty())
        return "suites: missing, empty or not a list";
    const std::uint64_t seed_count = seeds[1].get<std::uint64_t>() - seeds[0].get<std::uint64_t>() + 1;
    std::set<std::string> names;
    for (std::size_t i = 0; i < result["suites"].size(); ++i) {
        const nlohmann::json& suite = result["suites"][i];
        if (auto problem = suite_problem(suite, "suites[" + std::to_string(i) + "]", seed_count, shard_of_result);
            !problem.empty())
            return problem;
        if (!names.insert(suite["suite"].get<std::string>()).second)
            return "suites[" + std::to_string(i) + "]: suite " + suite["suite"].dump() + " twice";
    }
    if (auto problem = buckets_problem(result); !problem.empty()) return problem;
    if (result.contains("timed")) return timed_problem(result);
    return {};
}

bool is_sweep_result(const nlohmann::json& result) { return sweep_result_problem(result).empty(); }

nlohmann::json parse_sweep_result(std::string_view text, const std::string& label) {
    nlohmann::json result = parse_json_input(text, label);
    if (const std::string problem = sweep_result_problem(result); !problem.empty())
        throw UsageError(label + ": not a moqsim sweep result: " + problem);
    return result;
}

std::string sweep_difference(const nlohmann::json& result, const std::string& label, const nlohmann::json& other,
                             const std::string& other_label) {
    const auto differ = [&](const std::string& field, const nlohmann::json& mine, const nlohmann::json& theirs) {
        return field + " " + mine.dump() + " in " + label + ", " + theirs.dump() + " in " + other_label;
    };
    // A result written before --mix existed drew the fixed mix.
    const auto mix = [](const nlohmann::json& r) { return r.value("mix", nlohmann::json("fixed")); };
    for (const char* field : {"seeds", "strategy", "mutant"})
        if (result[field] != other[field]) return differ(field, result[field], other[field]);
    if (mix(result) != mix(other)) return differ("mix", mix(result), mix(other));
    if (result["shard"]["total"] != other["shard"]["total"])
        return differ("shard.total", result["shard"]["total"], other["shard"]["total"]);
    const auto names = [](const nlohmann::json& r) {
        nlohmann::json list = nlohmann::json::array();
        for (const auto& suite : r["suites"]) list.push_back(suite["suite"]);
        return list;
    };
    if (names(result) != names(other)) return differ("suites", names(result), names(other));
    for (std::size_t i = 0; i < result["suites"].size(); ++i) {
        const nlohmann::json& mine = result["suites"][i];
        const nlohmann::json& theirs = other["suites"][i];
        if (mine["cases"] != theirs["cases"])
            return differ("cases of suite " + mine["suite"].get<std::string>(), mine["cases"], theirs["cases"]);
    }
    return {};
}

}  // namespace moq::runner
