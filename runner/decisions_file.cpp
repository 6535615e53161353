#include "runner/decisions_file.hpp"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "runner/args.hpp"
#include "runner/json_input.hpp"
#include "runner/output.hpp"

namespace moq::runner {

namespace {

std::string digest_hex(std::uint64_t digest) {
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(digest));
    return text;
}

sim::Decision parse_decision(const nlohmann::json& json, std::size_t index, const std::string& label) {
    const std::string where = label + ": decision " + std::to_string(index);
    if (!json.is_object()) throw UsageError(where + " must be an object");
    for (const char* field : {"options", "choice"})
        if (!json.contains(field) || !json[field].is_number_unsigned() || json[field].get<std::uint64_t>() > UINT32_MAX)
            throw UsageError(where + ": '" + field + "' must be a whole number");
    if (!json.contains("kind") || !json["kind"].is_string()) throw UsageError(where + ": 'kind' must be a string");
    const auto kind = sim::parse_decision_kind(json["kind"].get<std::string>());
    if (!kind) throw UsageError(where + ": unknown kind " + json["kind"].dump());
    sim::Decision decision{*kind, json["options"].get<std::uint32_t>(), json["choice"].get<std::uint32_t>(), "", 0};
    if (decision.choice >= decision.options) throw UsageError(where + ": choice past its options");
    if (json.contains("where")) {
        if (!json["where"].is_string()) throw UsageError(where + ": 'where' must be a string");
        decision.where = json["where"].get<std::string>();
    }
    return decision;
}

// The fields beside the case and the decisions.
void parse_settings(const nlohmann::json& json, DecisionsFile& file, const std::string& label) {
    const auto reason = [&](const std::string& what) { return UsageError(label + ": " + what); };
    if (json.contains("strategy")) {
        const auto kind =
            json["strategy"].is_string() ? sim::parse_strategy(json["strategy"].get<std::string>()) : std::nullopt;
        if (!kind) throw reason("unknown strategy " + json["strategy"].dump());
        file.strategy = *kind;
    }
    if (json.contains("mutant") && !json["mutant"].is_null()) {
        if (!json["mutant"].is_string()) throw reason("mutant must be a string");
        file.mutant = json["mutant"].get<std::string>();
    }
    if (json.contains("bound")) {
        if (!json["bound"].is_number_unsigned() || json["bound"].get<std::uint64_t>() > UINT32_MAX)
            throw reason("bound must be a whole number");
        file.bound = json["bound"].get<std::uint32_t>();
    }
    if (json.contains("message") && json["message"].is_string()) file.message = json["message"].get<std::string>();
}

}  // namespace

DecisionsFile parse_decisions_file(std::string_view text, const std::string& label) {
    const nlohmann::json json = parse_json_input(text, label);
    const auto reason = [&](const std::string& what) { return UsageError(label + ": " + what); };
    if (!json.is_object() || !json.contains("format") || json["format"] != "moqsim-decisions")
        throw reason("not a moqsim decisions file (format)");
    if (!json.contains("version") || json["version"] != 1)
        throw reason("unknown version (this moqsim reads version 1)");
    if (!json.contains("suite") || !json["suite"].is_string()) throw reason("no suite");
    DecisionsFile file;
    file.suite = properties::find_suite(json["suite"].get<std::string>());
    if (!file.suite) throw reason("unknown suite '" + json["suite"].get<std::string>() + "'");
    parse_settings(json, file, label);
    if (!json.contains("case")) throw reason("no case");
    try {
        file.value = file.suite->from_json(json["case"]);
    } catch (const std::exception& error) {
        throw reason(std::string("bad case: ") + error.what());
    }
    if (!json.contains("decisions") || !json["decisions"].is_array()) throw reason("'decisions' must be an array");
    if (json["decisions"].size() > max_decisions) throw reason("more decisions than any run makes");
    for (const nlohmann::json& decision : json["decisions"])
        file.decisions.push_back(parse_decision(decision, file.decisions.size(), label));
    return file;
}

DecisionsFile read_decisions_file(const std::string& path) { return parse_decisions_file(read_input_file(path), path); }

std::string decisions_file_text(const DecisionsFile& file) {
    const nlohmann::json head = {{"format", "moqsim-decisions"},
                                 {"version", 1},
                                 {"suite", file.suite->name()},
                                 {"strategy", sim::strategy_name(file.strategy)},
                                 {"mutant", file.mutant ? nlohmann::json(*file.mutant) : nlohmann::json()},
                                 {"bound", file.bound},
                                 {"message", file.message},
                                 {"digest", digest_hex(file.digest)},
                                 {"case", file.value->to_json()}};
    // One field a line, then one decision a line: a long list stays readable and diffable.
    std::string text = "{\n";
    for (const char* key : {"format", "version", "suite", "strategy", "mutant", "bound", "message", "digest", "case"})
        text += std::string(" \"") + key + "\": " + head[key].dump() + ",\n";
    text += " \"decisions\": [";
    for (std::size_t i = 0; i < file.decisions.size(); ++i) {
        const sim::Decision& decision = file.decisions[i];
        const nlohmann::json line = {{"kind", sim::decision_kind_name(decision.kind)},
                                     {"options", decision.options},
                                     {"choice", decision.choice},
                                     {"where", decision.where}};
        text += std::string(i == 0 ? "\n  " : ",\n  ") + line.dump();
    }
    return text + "\n ]\n}\n";
}

void write_decisions_file(const std::string& path, const DecisionsFile& file) {
    write_atomically(path, decisions_file_text(file));
}

}  // namespace moq::runner
