#include "runner/replay_file.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "properties/small_scope.hpp"
#include "runner/args.hpp"
#include "runner/json_input.hpp"
#include "runner/output.hpp"

namespace moq::runner {

namespace {

using Json = nlohmann::json;

constexpr std::string_view format_name = "moqsim-case";

std::string digest_hex(std::uint64_t digest) {
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(digest));
    return text;
}

std::optional<std::uint32_t> whole_number(std::string_view text) {
    std::uint32_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
    return value;
}

// The field `key` of `json` (named `path` then `key` in a message), if present, as a whole
// number up to `max`.
std::optional<std::uint64_t> number_field(const Json& json, const char* key, std::uint64_t max,
                                          const std::string& label, const std::string& path = "") {
    if (!json.contains(key)) return std::nullopt;
    if (!json[key].is_number_unsigned() || json[key].get<std::uint64_t>() > max)
        throw UsageError(label + ": " + path + key + " must be a whole number up to " + std::to_string(max) + ", not " +
                         json[key].dump());
    return json[key].get<std::uint64_t>();
}

// The field `key` of found_by, if present, as a name `parse` knows.
template <class Parse>
auto named_field(const Json& json, const char* key, const std::string& label, Parse parse) -> decltype(parse("")) {
    if (!json.contains(key)) return std::nullopt;
    const auto known = json[key].is_string() ? parse(json[key].get<std::string>()) : std::nullopt;
    if (!known) throw UsageError(label + ": unknown found_by." + key + " " + json[key].dump());
    return known;
}

FoundBy parse_found_by(const Json& json, const std::string& label) {
    FoundBy found;
    if (!json.is_object()) throw UsageError(label + ": found_by must be an object, not " + json.dump());
    for (const char* key : {"way", "mutant"})
        if (json.contains(key) && !json[key].is_string())
            throw UsageError(label + ": found_by." + key + " must be a string, not " + json[key].dump());
    if (json.contains("way")) found.way = json["way"].get<std::string>();
    if (json.contains("mutant")) found.mutant = json["mutant"].get<std::string>();
    found.strategy =
        named_field(json, "strategy", label, [](std::string_view name) { return sim::parse_strategy(name); });
    found.mix = named_field(json, "mix", label, [](std::string_view name) { return properties::parse_mix(name); });
    found.seed = number_field(json, "seed", UINT64_MAX, label, "found_by.");
    found.index = number_field(json, "case", UINT64_MAX, label, "found_by.");
    if (const auto ops = number_field(json, "ops", properties::max_small_ops, label, "found_by."))
        found.ops = static_cast<int>(*ops);
    return found;
}

Json found_by_json(const FoundBy& found) {
    Json json = {{"way", found.way}};
    if (found.strategy) json["strategy"] = sim::strategy_name(*found.strategy);
    if (found.mix) json["mix"] = properties::mix_name(*found.mix);
    if (found.ops) json["ops"] = *found.ops;
    if (found.seed) json["seed"] = *found.seed;
    if (found.index) json["case"] = *found.index;
    if (found.mutant) json["mutant"] = *found.mutant;
    return json;
}

void check_format(const Json& json, const std::string& label) {
    const auto reason = [&](const std::string& what) { return UsageError(label + ": " + what); };
    if (!json.is_object() || !json.contains("format") || !json["format"].is_string())
        throw reason("not a moqsim case (format)");
    const std::string format = json["format"].get<std::string>();
    if (format == "moqsim-decisions")
        throw reason("a decisions file of an earlier moqsim (`moqsim convert FILE` makes it a case file)");
    if (format != format_name) throw reason("not a moqsim case (format '" + format + "')");
    if (!json.contains("version") || !json["version"].is_number_unsigned())
        throw reason("unknown version (this moqsim reads version " + std::to_string(replay_file_version) + ")");
    const std::uint64_t version = json["version"].get<std::uint64_t>();
    if (version == 1)
        throw reason("version 1 of the case format (`moqsim convert FILE` adds its decisions and makes it version 2)");
    if (version != replay_file_version)
        throw reason("unknown version " + std::to_string(version) + " (this moqsim reads version " +
                     std::to_string(replay_file_version) + ")");
}

std::vector<sim::Decision> parse_decisions(const Json& json, const std::string& label) {
    std::vector<sim::Decision> decisions;
    if (!json.contains("decisions")) return decisions;
    if (!json["decisions"].is_array()) throw UsageError(label + ": 'decisions' must be an array");
    if (json["decisions"].size() > max_decisions) throw UsageError(label + ": more decisions than any run makes");
    decisions.reserve(json["decisions"].size());
    for (const Json& decision : json["decisions"]) {
        const std::string where = label + ": decision " + std::to_string(decisions.size());
        if (!decision.is_string()) throw UsageError(where + " must be a string such as \"pick 1/2\"");
        decisions.push_back(parse_decision_text(decision.get<std::string>(), where));
    }
    return decisions;
}

}  // namespace

std::string decision_text(const sim::Decision& decision) {
    std::string text = std::string(sim::decision_kind_name(decision.kind)) + " " + std::to_string(decision.choice) +
                       "/" + std::to_string(decision.options);
    // The executor's own labels of its points say nothing the kind does not.
    static constexpr std::string_view kind_labels[] = {"pick", "timers", "spurious", "fresh", "clock"};
    const bool says_more =
        std::find(std::begin(kind_labels), std::end(kind_labels), decision.where) == std::end(kind_labels);
    if (!decision.where.empty() && says_more) text += " " + decision.where;
    return text;
}

sim::Decision parse_decision_text(std::string_view text, const std::string& where) {
    const auto bad = [&](const std::string& what) {
        return UsageError(where + ": " + what + " (\"KIND CHOICE/OPTIONS\", not " + Json(std::string(text)).dump() +
                          ")");
    };
    const std::size_t kind_end = text.find(' ');
    if (kind_end == std::string_view::npos) throw bad("no choice");
    const auto kind = sim::parse_decision_kind(text.substr(0, kind_end));
    if (!kind) throw bad("unknown kind");
    std::string_view rest = text.substr(kind_end + 1);
    const std::size_t choice_end = rest.find(' ');
    const std::string_view fraction = rest.substr(0, choice_end);
    const std::size_t slash = fraction.find('/');
    if (slash == std::string_view::npos) throw bad("no options");
    const auto choice = whole_number(fraction.substr(0, slash));
    const auto options = whole_number(fraction.substr(slash + 1));
    if (!choice || !options) throw bad("choice and options must be whole numbers");
    if (*choice >= *options) throw bad("choice past its options");
    sim::Decision decision{*kind, *options, *choice, "", 0};
    if (choice_end != std::string_view::npos) decision.where = std::string(rest.substr(choice_end + 1));
    return decision;
}

ReplayFile parse_replay_file(std::string_view text, const std::string& label) {
    const Json json = parse_json_input(text, label);
    check_format(json, label);
    const auto reason = [&](const std::string& what) { return UsageError(label + ": " + what); };
    if (!json.contains("suite") || !json["suite"].is_string()) throw reason("no suite");
    ReplayFile file;
    file.suite = properties::find_suite(json["suite"].get<std::string>());
    if (!file.suite) throw reason("unknown suite '" + json["suite"].get<std::string>() + "'");
    if (json.contains("mutant") && !json["mutant"].is_null()) {
        if (!json["mutant"].is_string()) throw reason("mutant must be a string");
        file.mutant = json["mutant"].get<std::string>();
    }
    if (json.contains("found_by")) file.found_by = parse_found_by(json["found_by"], label);
    file.bound = static_cast<std::uint32_t>(number_field(json, "bound", UINT32_MAX, label).value_or(0));
    if (json.contains("message")) {
        if (!json["message"].is_string()) throw reason("message must be a string");
        file.message = json["message"].get<std::string>();
    }
    if (json.contains("digest")) {
        const std::string digest = json["digest"].is_string() ? json["digest"].get<std::string>() : "";
        std::uint64_t value = 0;
        const auto [end, error] = std::from_chars(digest.data(), digest.data() + digest.size(), value, 16);
        if (digest.size() != 16 || error != std::errc() || end != digest.data() + digest.size())
            throw reason("digest must be 16 hex digits, not " + json["digest"].dump());
        file.digest = value;
    }
    if (!json.contains("case")) throw reason("no case");
    try {
        file.value = file.suite->from_json(json["case"]);
    } catch (const std::exception& error) {
        throw reason(std::string("bad case: ") + error.what());
    }
    file.decisions = parse_decisions(json, label);
    return file;
}

ReplayFile read_replay_file(const std::string& path) { return parse_replay_file(read_input_file(path), path); }

Json replay_file_json(const ReplayFile& file) {
    Json json = {{"format", format_name},
                 {"version", replay_file_version},
                 {"suite", file.suite->name()},
                 {"mutant", file.mutant ? Json(*file.mutant) : Json()},
                 {"found_by", found_by_json(file.found_by)},
                 {"bound", file.bound},
                 {"message", file.message},
                 {"case", file.value->to_json()},
                 {"decisions", Json::array()}};
    if (file.digest) json["digest"] = digest_hex(*file.digest);
    for (const sim::Decision& decision : file.decisions) json["decisions"].push_back(decision_text(decision));
    return json;
}

std::string replay_file_layout(const Json& json) {
    // One field a line; the decisions a few a line, wrapped near 100 columns.
    std::string text = "{\n";
    for (const char* key : {"format", "version", "suite", "mutant", "found_by", "bound", "message", "digest", "case"})
        if (json.contains(key)) text += std::string(" \"") + key + "\": " + json[key].dump() + ",\n";
    text += " \"decisions\": [";
    const Json& decisions = json.value("decisions", Json::array());
    std::size_t column = 100;
    for (std::size_t i = 0; i < decisions.size(); ++i) {
        const std::string item = decisions[i].dump() + (i + 1 < decisions.size() ? "," : "");
        if (column + item.size() > 98) {
            text += "\n  ";
            column = 2;
        } else {
            text += " ";
            ++column;
        }
        text += item;
        column += item.size();
    }
    return text + (decisions.empty() ? "]\n}\n" : "\n ]\n}\n");
}

std::string replay_file_text(const ReplayFile& file) { return replay_file_layout(replay_file_json(file)); }

void write_replay_file(const std::string& path, const ReplayFile& file) {
    write_atomically(path, replay_file_text(file));
}

ReplayFile replay_file_of(const properties::Suite& suite, const properties::Case& value,
                          const properties::CaseOutcome& outcome, std::optional<std::string> mutant, FoundBy found_by) {
    ReplayFile file;
    file.suite = &suite;
    file.value = value.clone();
    file.mutant = std::move(mutant);
    file.found_by = std::move(found_by);
    file.bound = outcome.costly_choices;
    file.message = outcome.ok ? "passed when saved" : outcome.message;
    file.digest = outcome.digest;
    file.decisions = outcome.decisions;
    return file;
}

}  // namespace moq::runner
