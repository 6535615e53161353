// A failing schedule found by `moqsim explore`: the case and every decision of its run,
// which `moqsim replay --decisions FILE` follows to the same digest.
//
//   {"format": "moqsim-decisions", "version": 1, "suite": "gate", "strategy": "random",
//    "mutant": "cell.modify.wake_unlocked", "bound": 2, "message": "what failed",
//    "digest": "00ab...", "case": { ...the suite's value... },
//    "decisions": [{"kind": "pick", "options": 2, "choice": 1, "where": "pick"}, ...]}
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "properties/suite.hpp"
#include "sim/decisions.hpp"

namespace moq::runner {

struct DecisionsFile {
    const properties::Suite* suite = nullptr;
    std::unique_ptr<properties::Case> value;
    sim::StrategyKind strategy = sim::StrategyKind::random;
    std::optional<std::string> mutant;
    std::uint32_t bound = 0;
    std::string message;
    std::uint64_t digest = 0;
    std::vector<sim::Decision> decisions;
};

// The most decisions a file may list (a run's step budget bounds a real one far below).
inline constexpr std::size_t max_decisions = 10000000;

// `text` (the contents of `label`) as a decisions file; UsageError "label: what is wrong".
DecisionsFile parse_decisions_file(std::string_view text, const std::string& label);
DecisionsFile read_decisions_file(const std::string& path);
std::string decisions_file_text(const DecisionsFile& file);
void write_decisions_file(const std::string& path, const DecisionsFile& file);

}  // namespace moq::runner
