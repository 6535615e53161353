// An exploration's result as JSON (`moqsim explore --json`, and the file --resume keeps):
// its settings, totals and failures, and for one stopped by its budget the frontier it
// goes on from. `moqsim merge` joins the results of an exploration's shards.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/options.hpp"
#include "sim/explorer.hpp"

namespace moq::runner {

// What an exploration is of: two results continue or join only when these agree.
nlohmann::json explore_settings(const ExploreOptions& options, const std::string& case_label);

// Where an unfinished exploration goes on: with --ops, the small case it stood in.
struct ExploreResume {
    sim::ExploreFrontier frontier;
    std::optional<std::uint64_t> case_index;
};

// What an earlier run of a --resume file did.
struct ExploreBefore {
    sim::ExploreTotals totals;
    nlohmann::json failures = nlohmann::json::array();
    std::uint64_t explored_cases = 0;     // with --ops
    std::string end;                      // how it ended: exhaustive, failure or budget
    std::optional<ExploreResume> resume;  // set when it ended by its budget
};

// The result as JSON. `before`: what the runs before this one (a --resume file) did.
struct ExploreReport {
    const ExploreOptions* options = nullptr;
    std::string settings_label;  // what was explored: the case, or the small cases
    std::string case_label;      // the failing small case, if one failed; else the same
    const sim::ExploreState* state = nullptr;
    std::optional<nlohmann::json> small_cases;  // with --ops
    std::optional<ExploreResume> resume;        // set when this run ended by its budget
    const ExploreBefore* before = nullptr;
};
nlohmann::json explore_result_json(const ExploreReport& report);

// The --resume file at `path`: nothing if there is none yet. Refused (UsageError, one line
// naming the file and the field): not an exploration's result, or settings that differ
// from `settings`.
std::optional<ExploreBefore> read_explore_resume(const std::string& path, const nlohmann::json& settings);

// Whether `result` is an exploration's (its format), for merge.
bool is_explore_result(const nlohmann::json& result);
// The shards' results of one exploration joined: their counts added, their failures
// listed, exhaustive only if each shard was and every shard is there. UsageError: results
// of different explorations, a shard twice, a result that is not well formed.
nlohmann::json merge_explore_results(const std::vector<nlohmann::json>& results, const std::vector<std::string>& paths);

}  // namespace moq::runner
