#include "runner/corpus_file.hpp"

#include <nlohmann/json.hpp>

#include "runner/args.hpp"
#include "runner/json_input.hpp"
#include "runner/output.hpp"

namespace moq::runner {

CorpusCase parse_corpus_case(std::string_view text, const std::string& label) {
    nlohmann::json json = parse_json_input(text, label);
    auto reason = [&](const std::string& what) { return UsageError(label + ": " + what); };
    if (!json.is_object() || !json.contains("format") || !json["format"].is_string() ||
        json["format"].get<std::string>() != "moqsim-case")
        throw reason("not a moqsim case (format)");
    if (!json.contains("version") || !json["version"].is_number_unsigned() || json["version"].get<std::uint64_t>() != 1)
        throw reason("unknown version (this moqsim reads version 1)");
    if (!json.contains("suite") || !json["suite"].is_string()) throw reason("no suite");
    CorpusCase stored;
    stored.suite = properties::find_suite(json["suite"].get<std::string>());
    if (!stored.suite) throw reason("unknown suite '" + json["suite"].get<std::string>() + "'");
    if (json.contains("strategy")) {
        if (!json["strategy"].is_string()) throw reason("strategy must be a string");
        const auto kind = sim::parse_strategy(json["strategy"].get<std::string>());
        if (!kind) throw reason("unknown strategy '" + json["strategy"].get<std::string>() + "'");
        stored.strategy = *kind;
    }
    if (!json.contains("case")) throw reason("no case");
    try {
        stored.value = stored.suite->from_json(json["case"]);
    } catch (const std::exception& error) {
        throw reason(std::string("bad case: ") + error.what());
    }
    if (json.contains("origin")) {
        // Where the case came from: only --save copies it, but a wrong field is still a bad file.
        const auto& origin = json["origin"];
        if (!origin.is_object()) throw reason("origin must be an object, not " + origin.dump());
        for (const char* field : {"seed", "case"})
            if (origin.contains(field) && !origin[field].is_number_unsigned())
                throw reason(std::string("origin.") + field + " must be a whole number, not " + origin[field].dump());
        for (const char* field : {"mutant", "mix"})
            if (origin.contains(field) && !origin[field].is_string())
                throw reason(std::string("origin.") + field + " must be a string, not " + origin[field].dump());
        if (origin.contains("seed")) stored.origin.seed = origin["seed"].get<std::uint64_t>();
        if (origin.contains("case")) stored.origin.index = origin["case"].get<std::uint64_t>();
        if (origin.contains("mutant")) stored.origin.mutant = origin["mutant"].get<std::string>();
        if (origin.contains("mix")) {
            const auto mix = properties::parse_mix(origin["mix"].get<std::string>());
            if (!mix) throw reason("unknown origin.mix " + origin["mix"].dump());
            stored.origin.mix = *mix;
        }
    }
    return stored;
}

CorpusCase read_corpus_file(const std::string& path) { return parse_corpus_case(read_input_file(path), path); }

nlohmann::json corpus_case_json(const properties::Suite& suite, const properties::Case& value,
                                sim::StrategyKind strategy, const CorpusOrigin& origin,
                                const properties::CaseOutcome& outcome) {
    nlohmann::json json = {{"format", "moqsim-case"},
                           {"version", 1},
                           {"suite", suite.name()},
                           {"strategy", sim::strategy_name(strategy)},
                           {"message", outcome.ok ? "passed when saved" : outcome.message},
                           {"case", value.to_json()}};
    nlohmann::json from = nlohmann::json::object();
    if (origin.seed) from["seed"] = *origin.seed;
    if (origin.index) from["case"] = *origin.index;
    if (origin.mutant) from["mutant"] = *origin.mutant;
    if (origin.mix != properties::Mix::fixed) from["mix"] = properties::mix_name(origin.mix);
    json["origin"] = from;
    return json;
}

std::string corpus_case_layout(const nlohmann::json& json) {
    // One top-level field a line, each compact: small diffs, and readable in a review.
    std::string text = "{\n";
    bool first = true;
    for (const char* key : {"format", "version", "suite", "strategy", "origin", "message", "case"}) {
        if (!json.contains(key)) continue;
        text += std::string(first ? "" : ",\n") + " " + nlohmann::json(key).dump() + ": " + json[key].dump();
        first = false;
    }
    return text + "\n}\n";
}

std::string corpus_case_text(const properties::Suite& suite, const properties::Case& value, sim::StrategyKind strategy,
                             const CorpusOrigin& origin, const properties::CaseOutcome& outcome) {
    return corpus_case_layout(corpus_case_json(suite, value, strategy, origin, outcome));
}

void write_corpus_file(const std::string& path, const properties::Suite& suite, const properties::Case& value,
                       sim::StrategyKind strategy, const CorpusOrigin& origin, const properties::CaseOutcome& outcome) {
    write_atomically(path, corpus_case_text(suite, value, strategy, origin, outcome));
}

}  // namespace moq::runner
