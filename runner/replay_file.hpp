// The one replay file: every failure and every saved case, whatever found it (a sweep, a
// sweep of small cases, an exploration, the guided search, a soak's bucket), is a case,
// its mutant and every decision of its run. `moqsim replay FILE` runs the case along the
// decisions to the digest the file records; `--shrink` shrinks case and schedule
// together; `moqsim explore --case FILE` explores around the decisions; corpus/ holds
// such files, each of which must pass.
//
//   {"format": "moqsim-case", "version": 2, "suite": "gate", "mutant": "idle.fire.mark_fired",
//    "found_by": {"way": "sweep", "strategy": "random", "seed": 1, "case": 2},
//    "bound": 1, "message": "what failed", "digest": "00ab...", "case": { ...the suite's value... },
//    "decisions": ["pick 1/2", "preempt 0/3 resume.walk", ...]}
//
// A decision is "KIND CHOICE/OPTIONS WHERE" (sim/decisions.hpp names the kinds; WHERE,
// the point's label, is for a reader). A case written by hand may leave the decisions
// out: every point then takes its default. "bound" is how many costly defaults the
// decisions leave (the preemptions a shrink or an exploration may spend); "found_by" says
// where the case came from and changes nothing of its run: its "mutant" is the one the
// case was found with, where the top-level "mutant" is the one a replay switches on. Version 1 of this format and
// the "moqsim-decisions" files of earlier explorations are read only by `moqsim convert`.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "properties/suite.hpp"
#include "sim/decisions.hpp"

namespace moq::runner {

inline constexpr int replay_file_version = 2;

// Where a saved case came from. Only `way` is always there.
struct FoundBy {
    std::string way = "hand";  // sweep, small-sweep, explore, guided, soak, hand
    std::optional<sim::StrategyKind> strategy;
    std::optional<std::uint64_t> seed;
    std::optional<std::uint64_t> index;  // the case's index in its sweep ("case")
    std::optional<properties::Mix> mix;
    std::optional<int> ops;  // a small case: of --ops N
    // The mutant it was found with, where replaying it does not switch that mutant on (a
    // corpus case, which must pass with every site on).
    std::optional<std::string> mutant;
};

struct ReplayFile {
    const properties::Suite* suite = nullptr;
    std::unique_ptr<properties::Case> value;
    std::optional<std::string> mutant;
    FoundBy found_by;
    std::uint32_t bound = 0;
    std::string message;  // what failed when it was saved ("passed when saved")
    std::optional<std::uint64_t> digest;
    std::vector<sim::Decision> decisions;
};

// The most decisions a file may list (a run's step budget bounds a real one far below).
inline constexpr std::size_t max_decisions = 10000000;

// `text` (the contents of `label`) as a replay file; UsageError "label: what is wrong".
// A pure function of its input, so a fuzzer can call it.
ReplayFile parse_replay_file(std::string_view text, const std::string& label);
ReplayFile read_replay_file(const std::string& path);
// The file as JSON, and as its text: one field a line, a few decisions a line.
nlohmann::json replay_file_json(const ReplayFile& file);
std::string replay_file_layout(const nlohmann::json& json);
std::string replay_file_text(const ReplayFile& file);
void write_replay_file(const std::string& path, const ReplayFile& file);

// The file of a run of `value`: its outcome (with its recorded decisions) and where the
// case came from.
ReplayFile replay_file_of(const properties::Suite& suite, const properties::Case& value,
                          const properties::CaseOutcome& outcome, std::optional<std::string> mutant, FoundBy found_by);

// "pick 1/2 where" and back.
std::string decision_text(const sim::Decision& decision);
sim::Decision parse_decision_text(std::string_view text, const std::string& where);

}  // namespace moq::runner
