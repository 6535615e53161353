// The corpus: saved cases as JSON files that every test run replays.
//
//   {"format": "moqsim-case", "version": 1, "suite": "resume", "strategy": "random",
//    "origin": {"seed": 3, "case": 117, "mutant": "resume.route.register"},
//    "message": "what failed when it was saved", "case": { ...the suite's value... }}
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "properties/suite.hpp"

namespace moq::runner {

struct CorpusOrigin {
    std::optional<std::uint64_t> seed;
    std::optional<std::uint64_t> index;
    std::optional<std::string> mutant;
    properties::Mix mix = properties::Mix::fixed;  // the operation mix the case was drawn with
};

struct CorpusCase {
    const properties::Suite* suite = nullptr;
    std::unique_ptr<properties::Case> value;
    sim::StrategyKind strategy = sim::StrategyKind::random;
    CorpusOrigin origin;
};

// `text` (the contents of `label`) as a case; UsageError "label: what is wrong" if it is
// not one. A pure function of its input, so a fuzzer can call it.
CorpusCase parse_corpus_case(std::string_view text, const std::string& label);
// A case as its file holds it (the JSON of the layout above).
nlohmann::json corpus_case_json(const properties::Suite& suite, const properties::Case& value,
                                sim::StrategyKind strategy, const CorpusOrigin& origin,
                                const properties::CaseOutcome& outcome);
// That JSON as the file's text: one top-level field a line, in the order above.
std::string corpus_case_layout(const nlohmann::json& json);
// The file's text for a case: what parse_corpus_case reads back as the same case.
std::string corpus_case_text(const properties::Suite& suite, const properties::Case& value, sim::StrategyKind strategy,
                             const CorpusOrigin& origin, const properties::CaseOutcome& outcome);

// Throws UsageError naming the file and what is wrong with it.
CorpusCase read_corpus_file(const std::string& path);
void write_corpus_file(const std::string& path, const properties::Suite& suite, const properties::Case& value,
                       sim::StrategyKind strategy, const CorpusOrigin& origin, const properties::CaseOutcome& outcome);

}  // namespace moq::runner
