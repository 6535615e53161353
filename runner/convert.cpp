#include "runner/convert.hpp"

#include <nlohmann/json.hpp>

#include "properties/explore.hpp"
#include "runner/args.hpp"
#include "runner/json_input.hpp"
#include "util/mutation.hpp"

namespace moq::runner {

namespace {

using Json = nlohmann::json;

const properties::Suite& suite_of(const Json& json, const std::string& label) {
    if (!json.contains("suite") || !json["suite"].is_string()) throw UsageError(label + ": no suite");
    const properties::Suite* suite = properties::find_suite(json["suite"].get<std::string>());
    if (!suite) throw UsageError(label + ": unknown suite '" + json["suite"].get<std::string>() + "'");
    return *suite;
}

std::unique_ptr<properties::Case> case_of(const properties::Suite& suite, const Json& json, const std::string& label) {
    if (!json.contains("case")) throw UsageError(label + ": no case");
    try {
        return suite.from_json(json["case"]);
    } catch (const std::exception& error) {
        throw UsageError(label + ": bad case: " + error.what());
    }
}

std::optional<std::string> string_field(const Json& json, const char* key, const std::string& label) {
    if (!json.contains(key) || json[key].is_null()) return std::nullopt;
    if (!json[key].is_string()) throw UsageError(label + ": " + key + " must be a string");
    return json[key].get<std::string>();
}

sim::StrategyKind strategy_of(const Json& json, const std::string& label) {
    const std::optional<std::string> name = string_field(json, "strategy", label);
    if (!name) return sim::StrategyKind::random;
    const auto kind = sim::parse_strategy(*name);
    if (!kind) throw UsageError(label + ": unknown strategy '" + *name + "'");
    return *kind;
}

// A case of version 1: run again under its strategy, its decisions recorded.
ReplayFile convert_case(const Json& json, const std::string& label) {
    const properties::Suite& suite = suite_of(json, label);
    const std::unique_ptr<properties::Case> value = case_of(suite, json, label);
    FoundBy found;
    found.strategy = strategy_of(json, label);
    if (json.contains("origin") && json["origin"].is_object()) {
        const Json& origin = json["origin"];
        if (origin.contains("seed") && origin["seed"].is_number_unsigned())
            found.seed = origin["seed"].get<std::uint64_t>();
        if (origin.contains("case") && origin["case"].is_number_unsigned())
            found.index = origin["case"].get<std::uint64_t>();
        found.mutant = string_field(origin, "mutant", label);
        if (const auto mix = string_field(origin, "mix", label)) found.mix = properties::parse_mix(*mix);
    }
    found.way = found.seed ? "sweep" : "hand";
    properties::RunSettings settings;
    settings.strategy = *found.strategy;
    settings.record_decisions = true;
    ReplayFile file = replay_file_of(suite, *value, value->run(settings), std::nullopt, found);
    // What it was saved for stays its message, even where it passes now.
    if (const auto message = string_field(json, "message", label)) file.message = *message;
    return file;
}

sim::Decision converted_decision(const Json& json, std::size_t index, const std::string& label) {
    const std::string where = label + ": decision " + std::to_string(index);
    if (!json.is_object() || !json.contains("kind") || !json["kind"].is_string() || !json.contains("options") ||
        !json["options"].is_number_unsigned() || !json.contains("choice") || !json["choice"].is_number_unsigned())
        throw UsageError(where + " must be an object with kind, options and choice");
    const auto kind = sim::parse_decision_kind(json["kind"].get<std::string>());
    if (!kind) throw UsageError(where + ": unknown kind " + json["kind"].dump());
    sim::Decision decision{*kind, json["options"].get<std::uint32_t>(), json["choice"].get<std::uint32_t>(),
                           string_field(json, "where", label).value_or(""), 0};
    if (decision.choice >= decision.options) throw UsageError(where + ": choice past its options");
    if (*kind == sim::DecisionKind::clock_jump && decision.options == 2) {
        decision.options = sim::clock_jump_sizes + 1;
        if (decision.choice == 1) decision.choice = sim::clock_jump_sizes;  // the jump by the largest size
    }
    return decision;
}

// A decisions file: its decisions carried over, and its run made again where it can be.
ReplayFile convert_decisions(const Json& json, const std::string& label) {
    const properties::Suite& suite = suite_of(json, label);
    ReplayFile file;
    file.suite = &suite;
    file.value = case_of(suite, json, label);
    file.mutant = string_field(json, "mutant", label);
    file.found_by.way = "explore";
    file.message = string_field(json, "message", label).value_or("");
    if (!json.contains("decisions") || !json["decisions"].is_array())
        throw UsageError(label + ": 'decisions' must be an array");
    for (const Json& decision : json["decisions"])
        file.decisions.push_back(converted_decision(decision, file.decisions.size(), label));
    // Its digest is this build's: the run along the decisions, with its mutant where this
    // build can switch it on (otherwise the file keeps no digest).
    if (!file.mutant || mutation::set_active_mutant(*file.mutant)) {
        const properties::DecidedRun run = properties::run_decisions(*file.value, file.decisions);
        file.digest = run.outcome.digest;
        file.bound = run.outcome.costly_choices;
        mutation::set_active_mutant("");
    }
    return file;
}

}  // namespace

std::optional<ReplayFile> convert_saved_case(std::string_view text, const std::string& label) {
    const Json json = parse_json_input(text, label);
    if (!json.is_object() || !json.contains("format") || !json["format"].is_string())
        throw UsageError(label + ": not a saved moqsim case (format)");
    const std::string format = json["format"].get<std::string>();
    const Json version = json.value("version", Json());
    if (format == "moqsim-case" && version == 2) {
        parse_replay_file(text, label);  // a bad version 2 file is refused as replay refuses it
        return std::nullopt;
    }
    if (format == "moqsim-case" && version == 1) return convert_case(json, label);
    if (format == "moqsim-decisions" && version == 1) return convert_decisions(json, label);
    throw UsageError(label + ": neither a moqsim case nor a decisions file of a version this moqsim converts");
}

}  // namespace moq::runner
