#include "runner/buckets.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <utility>

#include "properties/suite.hpp"
#include "properties/swarm.hpp"
#include "runner/args.hpp"
#include "runner/output.hpp"
#include "runner/replay_file.hpp"
#include "runner/sweep_result.hpp"
#include "sim/executor.hpp"
#include "sim/strategy.hpp"
#include "sim/trace.hpp"

namespace moq::runner {

namespace {

// The run outcomes that are failures, as a failure's message starts with them.
constexpr std::array failed_outcomes{sim::Outcome::deadlock, sim::Outcome::livelock, sim::Outcome::time_budget,
                                     sim::Outcome::missed_wake, sim::Outcome::task_failed};
constexpr std::string_view violated_check = "violated";
// How many leading "part: " prefixes may stand before a message's rule id.
constexpr int rule_prefixes = 3;

bool known_check(std::string_view check) {
    if (check == violated_check || check == nondeterministic_check) return true;
    return std::any_of(failed_outcomes.begin(), failed_outcomes.end(),
                       [&](sim::Outcome outcome) { return sim::outcome_name(outcome) == check; });
}

bool is_rule_id(std::string_view text) { return !text.empty() && sim::rule_of(std::string(text) + ":") == text; }

bool is_whole(const nlohmann::json& object, const char* field) {
    return object.contains(field) && object[field].is_number_unsigned();
}

std::uint64_t whole(const nlohmann::json& object, const char* field) { return object[field].get<std::uint64_t>(); }

// A list of known names, sorted, each once.
std::string names_problem(const nlohmann::json& bucket, const char* field, const std::string& where,
                          bool (*known)(const std::string&)) {
    const nlohmann::json names = bucket.value(field, nlohmann::json());
    if (!names.is_array() || names.empty()) return where + "." + field + ": missing, empty or not a list";
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (!names[i].is_string() || !known(names[i].get<std::string>()))
            return where + "." + field + ": " + names[i].dump() + " is not a known name";
        if (i > 0 && names[i - 1].get<std::string>() >= names[i].get<std::string>())
            return where + "." + field + ": " + names.dump() + " is not sorted with each name once";
    }
    return {};
}

std::string first_problem(const nlohmann::json& first, const std::string& where) {
    if (!first.is_object()) return where + ": not an object";
    for (const char* field : {"seed", "case"})
        if (!is_whole(first, field)) return where + "." + field + ": missing or not a whole number";
    for (const char* field : {"message", "replay"})
        if (!first.contains(field) || !first[field].is_string()) return where + "." + field + ": missing or not text";
    return {};
}

// The smallest case: a saved case of the bucket's suite whose operations are its signature.
std::string smallest_problem(const nlohmann::json& smallest, const std::string& where, const nlohmann::json& bucket) {
    if (!smallest.is_object()) return where + ": not an object";
    for (const char* field : {"seed", "case", "steps"})
        if (!is_whole(smallest, field)) return where + "." + field + ": missing or not a whole number";
    if (!smallest.contains("complete") || !smallest["complete"].is_boolean())
        return where + ".complete: missing or not true or false";
    if (smallest.contains("file") != smallest.contains("replay")) return where + ": a file without its replay or back";
    for (const char* field : {"file", "replay"})
        if (smallest.contains(field) && !smallest[field].is_string()) return where + "." + field + ": not text";
    if (!smallest.contains("saved") || !smallest["saved"].is_object()) return where + ".saved: missing or not a case";
    try {
        const ReplayFile saved = parse_replay_file(smallest["saved"].dump(), where + ".saved");
        if (saved.suite->name() != bucket["suite"].get<std::string>())
            return where + ".saved: a case of suite " + std::string(saved.suite->name());
        if (nlohmann::json(saved.suite->operation_kinds(*saved.value)) != bucket["signature"])
            return where + ".saved: its operations are not the bucket's signature";
    } catch (const UsageError& error) {
        return error.what();
    }
    return {};
}

std::string bucket_problem(const nlohmann::json& bucket, const std::string& where,
                           const std::map<std::string, std::uint64_t>& runs) {
    if (!bucket.is_object()) return where + ": not an object";
    for (const char* field : {"id", "rule", "check", "suite"})
        if (!bucket.contains(field) || !bucket[field].is_string()) return where + "." + field + ": missing or not text";
    if (bucket.contains("shape") && !bucket["shape"].is_string()) return where + ".shape: not text";
    const std::string rule = bucket["rule"].get<std::string>();
    if (rule != "none" && !is_rule_id(rule)) return where + ".rule: " + bucket["rule"].dump() + " is not a rule id";
    if (!known_check(bucket["check"].get<std::string>()))
        return where + ".check: unknown check " + bucket["check"].dump();
    const auto suite = runs.find(bucket["suite"].get<std::string>());
    if (suite == runs.end()) return where + ".suite: " + bucket["suite"].dump() + " is not a suite of the result";
    const nlohmann::json signature = bucket.value("signature", nlohmann::json());
    if (!signature.is_array()) return where + ".signature: missing or not a list";
    std::vector<std::string> kinds;
    for (const nlohmann::json& kind : signature) {
        if (!kind.is_string()) return where + ".signature: " + kind.dump() + " is not an operation's name";
        kinds.push_back(kind.get<std::string>());
    }
    if (bucket["id"] != bucket_id(rule, bucket["check"].get<std::string>(), suite->first, kinds))
        return where + ".id: " + bucket["id"].dump() + " is not the id of its rule, check, suite and signature";
    if (!is_whole(bucket, "count") || whole(bucket, "count") == 0 || whole(bucket, "count") > suite->second)
        return where + ".count: " + bucket.value("count", nlohmann::json()).dump() + " is not 1 to the " +
               std::to_string(suite->second) + " cases the suite ran";
    if (auto problem = names_problem(bucket, "strategies", where,
                                     [](const std::string& name) { return sim::parse_strategy(name).has_value(); });
        !problem.empty())
        return problem;
    if (auto problem = names_problem(bucket, "mixes", where,
                                     [](const std::string& name) { return properties::parse_mix(name).has_value(); });
        !problem.empty())
        return problem;
    if (auto problem = first_problem(bucket.value("first", nlohmann::json()), where + ".first"); !problem.empty())
        return problem;
    return smallest_problem(bucket.value("smallest", nlohmann::json()), where + ".smallest", bucket);
}

// (seed, case) of a bucket's first or smallest.
std::pair<std::uint64_t, std::uint64_t> origin_of(const nlohmann::json& entry) {
    return {whole(entry, "seed"), whole(entry, "case")};
}

nlohmann::json names_union(const nlohmann::json& mine, const nlohmann::json& theirs) {
    std::set<std::string> names;
    for (const nlohmann::json& name : mine) names.insert(name.get<std::string>());
    for (const nlohmann::json& name : theirs) names.insert(name.get<std::string>());
    return names;
}

std::string bucket_list_problem(const nlohmann::json& buckets, const std::map<std::string, std::uint64_t>& runs) {
    if (!buckets.is_array()) return "buckets: not a list";
    std::set<std::string> ids;
    for (std::size_t i = 0; i < buckets.size(); ++i) {
        const std::string where = "buckets[" + std::to_string(i) + "]";
        if (auto problem = bucket_problem(buckets[i], where, runs); !problem.empty()) return problem;
        if (!ids.insert(buckets[i]["id"].get<std::string>()).second)
            return where + ".id: " + buckets[i]["id"].dump() + " twice";
    }
    return {};
}

}  // namespace

FailureKind failure_kind(std::string_view message) {
    FailureKind kind{"none", std::string(violated_check)};
    const auto starts = [&](std::string_view prefix) {
        return message.size() > prefix.size() + 1 && message.substr(0, prefix.size()) == prefix &&
               message.substr(prefix.size(), 2) == ": ";
    };
    for (const sim::Outcome outcome : failed_outcomes)
        if (starts(sim::outcome_name(outcome))) kind.check = sim::outcome_name(outcome);
    if (starts(nondeterministic_check)) kind.check = nondeterministic_check;
    std::string_view rest = message;
    for (int part = 0; part < rule_prefixes; ++part) {
        if (const std::string_view rule = sim::rule_of(rest); !rule.empty()) {
            kind.rule = std::string(rule);
            break;
        }
        const std::size_t end = rest.find(": ");
        if (end == std::string_view::npos) break;
        rest.remove_prefix(end + 2);
    }
    return kind;
}

std::string message_shape(std::string_view message) {
    std::string shape;
    int depth = 0;  // inside parentheses: detail, left out
    for (std::size_t i = 0; i < message.size(); ++i) {
        const char c = message[i];
        if (c == '(' || c == ')') {
            depth = std::max(0, depth + (c == '(' ? 1 : -1));
            continue;
        }
        if (depth > 0) continue;
        const bool digit = c >= '0' && c <= '9';
        const bool word_before = i > 0 && std::isalnum(static_cast<unsigned char>(message[i - 1]));
        const bool word_after = i + 1 < message.size() && std::isalnum(static_cast<unsigned char>(message[i + 1]));
        if (digit || (c == ',' && !shape.empty() && shape.back() == '#' && i + 1 < message.size() &&
                      message[i + 1] >= '0' && message[i + 1] <= '9')) {
            // A number, or a list of them: one '#'.
            if (shape.empty() || shape.back() != '#') shape += '#';
        } else if (c >= 'A' && c <= 'Z' && !word_before && !word_after) {
            shape += '?';  // a one-letter name (copy A)
        } else {
            shape += c;
        }
    }
    while (!shape.empty() && shape.back() == ' ') shape.pop_back();
    return shape;
}

std::string bucket_id(std::string_view rule, std::string_view check, std::string_view suite,
                      const std::vector<std::string>& signature) {
    // FNV-1a over the fields, each ended by a unit separator: stable on every machine.
    std::uint64_t hash = 0xcbf29ce484222325ULL;
    const auto add = [&](std::string_view text) {
        for (const char c : text) hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
        hash = (hash ^ 0x1fU) * 0x100000001b3ULL;
    };
    add(rule);
    add(check);
    add(suite);
    for (const std::string& kind : signature) add(kind);
    return digest_text(hash).substr(0, 12);
}

std::string buckets_problem(const nlohmann::json& result) {
    if (!result.contains("buckets")) return {};
    std::map<std::string, std::uint64_t> runs;
    for (const nlohmann::json& suite : result["suites"]) runs[suite["suite"].get<std::string>()] = whole(suite, "run");
    return bucket_list_problem(result["buckets"], runs);
}

std::string known_buckets_problem(const nlohmann::json& known) {
    if (!known.is_object() || !known.contains("buckets")) return "no \"buckets\"";
    std::map<std::string, std::uint64_t> runs;
    for (const properties::Suite* suite : properties::suites()) runs[std::string(suite->name())] = UINT64_MAX;
    return bucket_list_problem(known["buckets"], runs);
}

// Found apart (another shard, another run), one kind of failure if its message reads the same.
bool same_shape(const nlohmann::json& known, const nlohmann::json& bucket) {
    return known.contains("shape") && bucket.contains("shape") && known["shape"] == bucket["shape"] &&
           known["suite"] == bucket["suite"] && known["rule"] == bucket["rule"] && known["check"] == bucket["check"];
}

void join_buckets(nlohmann::json& into, const nlohmann::json& more) {
    for (const nlohmann::json& bucket : more) {
        const auto with_id = [&](const nlohmann::json& known) { return known["id"] == bucket["id"]; };
        auto same = std::find_if(into.begin(), into.end(), with_id);
        const bool id_known = same != into.end();
        if (!id_known)
            same = std::find_if(into.begin(), into.end(),
                                [&](const nlohmann::json& known) { return same_shape(known, bucket); });
        if (same == into.end()) {
            into.push_back(bucket);
            continue;
        }
        nlohmann::json& known = *same;
        known["count"] = whole(known, "count") + whole(bucket, "count");
        known["strategies"] = names_union(known["strategies"], bucket["strategies"]);
        known["mixes"] = names_union(known["mixes"], bucket["mixes"]);
        if (origin_of(bucket["first"]) < origin_of(known["first"])) known["first"] = bucket["first"];
        const auto size = [](const nlohmann::json& smallest) {
            return std::pair(whole(smallest, "steps"), origin_of(smallest));
        };
        // The smaller case keys the bucket: its id and signature go with it.
        if (size(bucket["smallest"]) < size(known["smallest"]))
            for (const char* field : {"smallest", "id", "signature"}) known[field] = bucket[field];
    }
}

std::string bucket_lines(const nlohmann::json& buckets) {
    if (buckets.empty()) return {};
    std::string text = "buckets: " + std::to_string(buckets.size()) + "\n";
    for (const nlohmann::json& bucket : buckets) {
        std::string signature;
        for (const nlohmann::json& kind : bucket["signature"])
            signature += (signature.empty() ? "" : " ") + kind.get<std::string>();
        // Without a file (a result not written) the first case, shrunk, is the nearest replay.
        const std::string replay =
            bucket["smallest"].value("replay", bucket["first"]["replay"].get<std::string>() + " --shrink");
        text.append("  ")
            .append(bucket["id"].get<std::string>())
            .append("  ")
            .append(bucket["rule"].get<std::string>())
            .append(" ")
            .append(bucket["check"].get<std::string>())
            .append(", ")
            .append(bucket["suite"].get<std::string>())
            .append(": ")
            .append(bucket["count"].dump())
            .append(" failed; smallest [")
            .append(signature)
            .append("]\n    replay: ")
            .append(replay)
            .append("\n");
    }
    return text;
}

std::string bucket_case_folder(const std::string& result_path) { return result_path + ".cases"; }

void check_bucket_case_folder(const std::string& result_path) {
    const std::string folder = bucket_case_folder(result_path);
    std::error_code error;
    const auto status = std::filesystem::status(folder, error);
    if (std::filesystem::exists(status) && !std::filesystem::is_directory(status))
        throw UsageError("cannot keep the buckets' cases in '" + folder + "': it exists and is not a folder");
}

void write_bucket_cases(nlohmann::json& buckets, const std::string& result_path, const std::string& program) {
    if (buckets.empty()) return;
    const std::string folder = bucket_case_folder(result_path);
    std::error_code error;
    std::filesystem::create_directories(folder, error);
    if (error) throw UsageError("cannot make the folder '" + folder + "': " + error.message());
    for (nlohmann::json& bucket : buckets) {
        nlohmann::json& smallest = bucket["smallest"];
        const std::string path = folder + "/" + bucket["id"].get<std::string>() + ".json";
        write_atomically(path, replay_file_layout(smallest["saved"]));
        smallest["file"] = path;
        smallest["replay"] = program + " replay " + path;
    }
}

}  // namespace moq::runner
