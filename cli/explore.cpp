// moqsim explore: every schedule of one case, or of every small case of up to N operations
// (properties/small_scope.hpp), within a preemption bound (sim/explorer.hpp), each judged
// by the suite's model; totals as text or JSON, a progress line on standard
// error, and for a failure its decisions file with the one command that replays it.
#include <chrono>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "cli/corpus_file.hpp"
#include "cli/decisions_file.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "properties/explore.hpp"
#include "properties/small_scope.hpp"

namespace moq::cli {

namespace {

struct ExploredCase {
    std::unique_ptr<properties::Case> value;
    std::string label;
};

ExploredCase explored_case(const ExploreOptions& options) {
    if (options.case_file) {
        CorpusCase stored = read_corpus_file(*options.case_file);
        if (stored.suite != options.suite)
            throw UsageError(*options.case_file + ": a case of the " + std::string(stored.suite->name()) +
                             " suite, not of " + std::string(options.suite->name()));
        return {std::move(stored.value), *options.case_file};
    }
    return {options.suite->generate(options.seed, options.index, options.mix),
            std::string(options.suite->name()) + " seed " + std::to_string(options.seed) + " case " +
                std::to_string(options.index)};
}

// A line on standard error every few seconds of a long exploration.
class ExploreProgress {
public:
    void operator()(const sim::ExploreTotals& totals) {
        const auto now = std::chrono::steady_clock::now();
        if (now - last_ < std::chrono::seconds(5)) return;
        last_ = now;
        const double seconds = std::chrono::duration<double>(now - started_).count();
        std::fprintf(stderr, "explore: %llu schedules, %.0f/s, %llu failures, deepest %llu decisions, %.0f s\n",
                     static_cast<unsigned long long>(totals.schedules), totals.schedules / std::max(seconds, 1e-9),
                     static_cast<unsigned long long>(totals.failures), static_cast<unsigned long long>(totals.deepest),
                     seconds);
    }

private:
    std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
    std::chrono::steady_clock::time_point last_ = started_;
};

// With --ops: how many small cases there were, and how many were explored.
struct SmallCaseCounts {
    properties::SmallScopeTotals scope;
    std::uint64_t explored = 0;
};

nlohmann::json totals_json(const ExploreOptions& options, const ExploredCase& explored, const sim::ExploreState& state,
                           const std::optional<SmallCaseCounts>& small) {
    const sim::ExploreTotals& totals = state.totals;
    nlohmann::json failures = nlohmann::json::array();
    for (const sim::ExploredFailure& failure : state.failures)
        failures.push_back({{"message", failure.verdict.message},
                            {"digest", failure.verdict.digest},
                            {"decisions", failure.decisions.size()}});
    nlohmann::json cases;
    if (small)
        cases = {{"ops", *options.ops},
                 {"enumerated", small->scope.enumerated},
                 {"symmetric", small->scope.symmetric},
                 {"explored", small->explored}};
    return {{"suite", options.suite->name()},
            {"case", explored.label},
            {"small_cases", cases},
            {"bound", options.bound},
            {"sleep_sets", options.sleep_sets},
            {"mutant", options.mutant ? nlohmann::json(*options.mutant) : nlohmann::json()},
            {"end", sim::explore_end_name(state.end)},
            {"exhaustive", state.end == sim::ExploreEnd::exhaustive},
            {"schedules", totals.schedules},
            {"pruned_by_bound", totals.pruned_by_bound},
            {"pruned_by_sleep_sets", totals.pruned_by_sleep},
            {"ended_asleep", totals.sleep_blocked},
            {"state_caching", options.state_caching},
            {"pruned_by_state_cache", totals.pruned_by_cache},
            {"distinct_states", totals.distinct_states},
            {"deepest", totals.deepest},
            {"seconds", totals.seconds},
            {"schedules_per_second", totals.seconds > 0 ? totals.schedules / totals.seconds : 0.0},
            {"failures", failures},
            {"failure_file", state.failures.empty() ? nlohmann::json() : nlohmann::json(options.failure_path)}};
}

std::string cache_line(const ExploreOptions& options, const sim::ExploreTotals& totals) {
    if (!options.state_caching) return "state caching off";
    if (totals.distinct_states == 0) return "no state cached: the suite gives no state digest";
    return std::to_string(totals.distinct_states) + " distinct states; " + std::to_string(totals.pruned_by_cache) +
           " points skipped as reached before";
}

void print_totals(const ExploreOptions& options, const ExploredCase& explored, const sim::ExploreState& state,
                  const std::optional<SmallCaseCounts>& small) {
    const sim::ExploreTotals& totals = state.totals;
    if (small)
        std::printf("explore: %llu small cases of up to %d operations, %llu skipped as symmetric, %llu explored\n",
                    static_cast<unsigned long long>(small->scope.enumerated), *options.ops,
                    static_cast<unsigned long long>(small->scope.symmetric),
                    static_cast<unsigned long long>(small->explored));
    std::printf(
        "explore: %s, bound %u%s: %s\n  %llu schedules (not taken: %llu choices past the bound, %llu asleep; %llu "
        "runs ended asleep), deepest %llu decisions\n  %s\n  %.2f s, %.0f schedules/s, %llu failures\n",
        explored.label.c_str(), options.bound, options.sleep_sets ? "" : ", no sleep sets",
        std::string(sim::explore_end_name(state.end)).c_str(), static_cast<unsigned long long>(totals.schedules),
        static_cast<unsigned long long>(totals.pruned_by_bound),
        static_cast<unsigned long long>(totals.pruned_by_sleep), static_cast<unsigned long long>(totals.sleep_blocked),
        static_cast<unsigned long long>(totals.deepest), cache_line(options, totals).c_str(), totals.seconds,
        totals.seconds > 0 ? totals.schedules / totals.seconds : 0.0, static_cast<unsigned long long>(totals.failures));
}

void report_failure(const Program& program, const ExploreOptions& options, const ExploredCase& explored,
                    const sim::ExploredFailure& failure) {
    DecisionsFile file;
    file.suite = options.suite;
    file.value = explored.value->clone();
    file.mutant = options.mutant;
    file.bound = options.bound;
    file.message = failure.verdict.message;
    file.digest = failure.verdict.digest;
    file.decisions = failure.decisions;
    write_decisions_file(options.failure_path, file);
    FILE* out = options.json ? stderr : stdout;
    std::fprintf(out, "explore: FAILED: %s\n  digest %016llx\n  case: %s\n  decisions (%zu):\n",
                 failure.verdict.message.c_str(), static_cast<unsigned long long>(failure.verdict.digest),
                 explored.value->describe().c_str(), failure.decisions.size());
    for (const sim::Decision& decision : failure.decisions)
        if (decision.choice != decision.fallback)  // the defaults are most of a list: the others say what happened
            std::fprintf(out, "    #%zu %s %u/%u %s\n", static_cast<std::size_t>(&decision - failure.decisions.data()),
                         std::string(sim::decision_kind_name(decision.kind)).c_str(), decision.choice, decision.options,
                         decision.where.c_str());
    std::fprintf(out, "  decisions file: %s\n  replay: %s replay --decisions %s\n", options.failure_path.c_str(),
                 program.name.c_str(), options.failure_path.c_str());
}

// Every small case of up to --ops operations, each explored into `state` until the search
// ends; the case of the first failure is kept for its report.
SmallCaseCounts explore_small_cases(const ExploreOptions& options, const sim::ExploreOptions& search,
                                    sim::ExploreState& state, ExploredCase& failing) {
    SmallCaseCounts counts;
    const std::string prefix = std::string(options.suite->name()) + " --ops " + std::to_string(*options.ops) + " case ";
    try {
        counts.scope = properties::for_each_small_case(
            *options.suite, *options.ops, [&](const properties::Case& value, std::uint64_t index) {
                const std::size_t failures_before = state.failures.size();
                properties::explore_case(value, search, state);
                ++counts.explored;
                if (failures_before == 0 && !state.failures.empty())
                    failing = {value.clone(), prefix + std::to_string(index)};
                return !state.ended();
            });
    } catch (const std::invalid_argument& error) {
        throw UsageError(error.what());
    }
    return counts;
}

}  // namespace

int explore(const Program& program, const std::vector<std::string>& arguments) {
    const ExploreOptions options = parse_explore_options(arguments);
    if (options.mutant) activate_mutant(*options.mutant);
    check_writable(options.failure_path, "--failure");

    sim::ExploreOptions search;
    search.bound = options.bound;
    search.sleep_sets = options.sleep_sets;
    search.state_caching = options.state_caching;
    search.keep_going = options.keep_going;
    if (options.budget_seconds)
        search.deadline = std::chrono::steady_clock::now() + std::chrono::seconds(*options.budget_seconds);
    ExploreProgress progress;
    search.progress = [&progress](const sim::ExploreTotals& totals) { progress(totals); };
    sim::ExploreState state;
    ExploredCase explored;
    std::optional<SmallCaseCounts> small;
    if (options.ops) {
        explored.label = std::string(options.suite->name()) + " small cases of up to " + std::to_string(*options.ops) +
                         " operations";
        ExploredCase failing;
        small = explore_small_cases(options, search, state, failing);
        if (failing.value) explored = std::move(failing);
    } else {
        explored = explored_case(options);
        properties::explore_case(*explored.value, search, state);
    }

    if (!state.failures.empty()) report_failure(program, options, explored, state.failures.front());
    if (options.json)
        std::printf("%s\n", totals_json(options, explored, state, small).dump(1).c_str());
    else
        print_totals(options, explored, state, small);
    return state.failures.empty() ? 0 : 1;
}

}  // namespace moq::cli
