// moqsim explore: every schedule of one case, or of every small case of up to N operations
// (properties/small_scope.hpp), within a preemption bound (sim/explorer.hpp), each judged
// by the suite's model; totals as text or JSON, a progress line on standard
// error, and for a failure its replay file with the one command that replays it.
#include <chrono>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "properties/explore.hpp"
#include "properties/small_scope.hpp"
#include "runner/args.hpp"
#include "runner/commands.hpp"
#include "runner/explore_result.hpp"
#include "runner/options.hpp"
#include "runner/output.hpp"
#include "runner/replay_file.hpp"
#include "runner/shard.hpp"
#include "runner/watchdog.hpp"

namespace moq::runner {

namespace {

struct ExploredCase {
    std::unique_ptr<properties::Case> value;
    std::string label;
    std::vector<sim::Decision> around{};  // a file's decisions: the run explored around
};

ExploredCase explored_case(const ExploreOptions& options) {
    if (options.case_file) {
        ReplayFile stored = read_replay_file(*options.case_file);
        if (options.suite && stored.suite != options.suite)
            throw UsageError(*options.case_file + ": a case of the " + std::string(stored.suite->name()) +
                             " suite, not of " + std::string(options.suite->name()));
        return {std::move(stored.value), *options.case_file, std::move(stored.decisions)};
    }
    return {options.suite->generate(options.seed, options.index, options.mix),
            std::string(options.suite->name()) + " seed " + std::to_string(options.seed) + " case " +
                std::to_string(options.index),
            {}};
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
    // The case the search stood in when its budget ran out.
    std::optional<std::uint64_t> stopped_in;

    [[nodiscard]] nlohmann::json json(int ops) const {
        return {{"ops", ops}, {"enumerated", scope.enumerated}, {"symmetric", scope.symmetric}, {"explored", explored}};
    }
};

std::string cache_line(const ExploreOptions& options, const nlohmann::json& result) {
    if (!options.state_caching) return "state caching off";
    if (result["distinct_states"] == 0) return "no state cached: the suite gives no state digest";
    return result["distinct_states"].dump() + " distinct states; " + result["pruned_by_state_cache"].dump() +
           " points skipped as reached before";
}

// The result (explore_result_json) as text: with --resume, the totals of every run so far.
void print_totals(const ExploreOptions& options, const nlohmann::json& result) {
    const auto count = [&result](const char* key) { return result[key].dump(); };
    if (result["small_cases"].is_object()) {
        const nlohmann::json& small = result["small_cases"];
        std::printf("explore: %s small cases of up to %d operations, %s skipped as symmetric, %s explored\n",
                    small["enumerated"].dump().c_str(), *options.ops, small["symmetric"].dump().c_str(),
                    small["explored"].dump().c_str());
    }
    std::printf("explore: %s, bound %u%s: %s\n", result["case"].get<std::string>().c_str(), options.bound,
                options.sleep_sets ? "" : ", no sleep sets", result["end"].get<std::string>().c_str());
    std::printf(
        "  %s schedules (not taken: %s choices past the bound, %s asleep; %s runs ended asleep), deepest %s "
        "decisions\n  %s\n  %.2f s, %.0f schedules/s, %zu failures\n",
        count("schedules").c_str(), count("pruned_by_bound").c_str(), count("pruned_by_sleep_sets").c_str(),
        count("ended_asleep").c_str(), count("deepest").c_str(), cache_line(options, result).c_str(),
        result["seconds"].get<double>(), result["schedules_per_second"].get<double>(), result["failures"].size());
    if (options.shard.total > 1)
        std::printf("  shard %llu of %llu (%s runs walked past other shards' subtrees)\n",
                    static_cast<unsigned long long>(options.shard.index),
                    static_cast<unsigned long long>(options.shard.total), count("other_shards").c_str());
    if (!result["resume"].is_null())
        std::printf("  stopped by its budget: %s\n",
                    options.resume_path ? ("the same command goes on from " + *options.resume_path).c_str()
                                        : "run it with --resume FILE to keep where it stopped");
}

void report_failure(const Program& program, const ExploreOptions& options, const ExploredCase& explored,
                    const sim::ExploredFailure& failure) {
    ReplayFile file;
    file.suite = options.suite;
    file.value = explored.value->clone();
    file.mutant = options.mutant;
    file.found_by.way = "explore";
    if (!options.case_file && !options.ops) {
        file.found_by.seed = options.seed;
        file.found_by.index = options.index;
        file.found_by.mix = options.mix;
    }
    file.bound = options.bound;
    file.message = failure.verdict.message;
    file.digest = failure.verdict.digest;
    file.decisions = failure.decisions;
    write_replay_file(options.failure_path, file);
    FILE* out = options.json ? stderr : stdout;
    std::fprintf(out, "explore: FAILED: %s\n  digest %016llx\n  case: %s\n  decisions (%zu):\n",
                 failure.verdict.message.c_str(), static_cast<unsigned long long>(failure.verdict.digest),
                 explored.value->describe().c_str(), failure.decisions.size());
    for (const sim::Decision& decision : failure.decisions)
        if (decision.choice != decision.fallback)  // the defaults are most of a list: the others say what happened
            std::fprintf(out, "    #%zu %s %u/%u %s\n", static_cast<std::size_t>(&decision - failure.decisions.data()),
                         std::string(sim::decision_kind_name(decision.kind)).c_str(), decision.choice, decision.options,
                         decision.where.c_str());
    std::fprintf(out, "  case file: %s\n  replay: %s replay %s\n", options.failure_path.c_str(), program.name.c_str(),
                 options.failure_path.c_str());
    std::fprintf(out, "  shrink: %s replay %s --shrink --save SMALL.json\n", program.name.c_str(),
                 options.failure_path.c_str());
}

// Every small case of up to --ops operations that is this shard's, each explored into
// `state` until the search ends; from `resume` on if given. The case of the first failure
// is kept for its report.
SmallCaseCounts explore_small_cases(const ExploreOptions& options, sim::ExploreOptions search,
                                    const std::optional<ExploreResume>& resume, sim::ExploreState& state,
                                    ExploredCase& failing, std::uint64_t& watched_case) {
    SmallCaseCounts counts;
    const std::string prefix = std::string(options.suite->name()) + " --ops " + std::to_string(*options.ops) + " case ";
    const std::uint64_t first = resume ? resume->case_index.value_or(0) : 0;
    try {
        counts.scope = properties::for_each_small_case(
            *options.suite, *options.ops, [&](const properties::Case& value, std::uint64_t index) {
                if (index < first || index % options.shard.total != options.shard.index) return true;
                search.start = resume && index == first ? &resume->frontier : nullptr;
                watched_case = index;
                watchdog::at(index, state.totals.schedules);
                const std::size_t failures_before = state.failures.size();
                properties::explore_case(value, search, state);
                for (std::size_t at = failures_before; at < state.failures.size(); ++at)
                    state.failures[at].case_index = index;
                if (state.end == sim::ExploreEnd::budget) {
                    counts.stopped_in = index;
                    return false;
                }
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

sim::ExploreOptions search_options(const ExploreOptions& options, ExploreProgress& progress,
                                   const std::uint64_t& watched_case) {
    sim::ExploreOptions search;
    search.bound = options.bound;
    search.sleep_sets = options.sleep_sets;
    search.state_caching = options.state_caching;
    search.keep_going = options.keep_going;
    if (options.budget_seconds)
        search.deadline = std::chrono::steady_clock::now() + std::chrono::seconds(*options.budget_seconds);
    search.schedule_limit = options.max_schedules;
    // --ops shards deal out whole cases; one case's shards split its tree.
    if (!options.ops) search.shard = sim::ExploreShard{options.shard.index, options.shard.total, options.split_depth};
    search.progress = [&progress, &watched_case](const sim::ExploreTotals& totals) {
        progress(totals);
        watchdog::at(watched_case, totals.schedules);
    };
    return search;
}

// The exploration itself: every small case with --ops (`explored` becomes the failing
// one, if any), otherwise the one case; from `resume` on if given.
void explore_all(const ExploreOptions& options, sim::ExploreOptions search, const std::optional<ExploreResume>& resume,
                 ExploredCase& explored, sim::ExploreState& state, std::optional<SmallCaseCounts>& small,
                 std::uint64_t& watched_case) {
    if (options.ops) {
        ExploredCase failing;
        small = explore_small_cases(options, search, resume, state, failing, watched_case);
        if (failing.value) explored = std::move(failing);
        return;
    }
    if (resume) search.start = &resume->frontier;
    properties::explore_case(*explored.value, search, state, {}, explored.around);
}

// What a --resume file already holds that ended: its totals again, and its status.
int report_ended(const ExploreOptions& options, const ExploreBefore& before) {
    std::printf("explore: %s holds an exploration that ended (%s): %llu schedules, %zu failures; nothing to resume\n",
                options.resume_path->c_str(), before.end.c_str(),
                static_cast<unsigned long long>(before.totals.schedules), before.failures.size());
    return before.failures.empty() ? 0 : 1;
}

// The watchdog names a schedule that never ends by its number and small case; the same
// command runs the exploration to it again.
void watch_exploration(const Program& program, const ExploreOptions& options, const std::string& label) {
    watchdog::start(*options.case_timeout_seconds);
    const std::string again = program.command_line;
    watchdog::describe(
        [label, small = options.ops.has_value(), again](std::uint64_t hung_case, std::uint64_t schedules) {
            return watchdog::Described{"schedule " + std::to_string(schedules + 1) + " of " + label +
                                           (small ? ", case " + std::to_string(hung_case) : std::string()),
                                       again};
        });
}

}  // namespace

int explore(const Program& program, const Given& given) {
    ExploreOptions options = parse_explore_options(given, process_environment());
    if (!options.suite) options.suite = read_replay_file(*options.case_file).suite;
    if (options.mutant) activate_mutant(*options.mutant);
    check_writable(options.failure_path, "--failure");
    if (options.resume_path) {
        check_writable(*options.resume_path, "--resume");
        check_different_files("--failure", options.failure_path, "--resume", *options.resume_path);
    }
    ExploredCase explored;
    if (options.ops)
        explored.label = std::string(options.suite->name()) + " small cases of up to " + std::to_string(*options.ops) +
                         " operations";
    else
        explored = explored_case(options);
    const std::string settings_label = explored.label;
    std::optional<ExploreBefore> before;
    if (options.resume_path)
        before = read_explore_resume(*options.resume_path, explore_settings(options, settings_label));
    if (before && !before->resume) return report_ended(options, *before);
    acknowledge_shard();

    ExploreProgress progress;
    std::uint64_t watched_case = 0;  // with --ops, the small case being explored
    if (options.case_timeout_seconds) watch_exploration(program, options, settings_label);
    sim::ExploreOptions search = search_options(options, progress, watched_case);
    const std::optional<ExploreResume> resume = before ? before->resume : std::nullopt;
    sim::ExploreState state;
    std::optional<SmallCaseCounts> small;
    try {
        explore_all(options, search, resume, explored, state, small, watched_case);
    } catch (const sim::NotDeterministic& error) {
        if (!resume) throw;  // only a restored search's first run throws
        throw UsageError(*options.resume_path + ": resume.path[" + std::to_string(error.at) +
                         "] is not a decision this case makes there: a file of another build or case");
    }
    if (small && before) small->explored += before->explored_cases;
    std::optional<ExploreResume> unfinished;
    if (state.frontier) unfinished = ExploreResume{*state.frontier, small ? small->stopped_in : std::nullopt};

    if (!state.failures.empty()) report_failure(program, options, explored, state.failures.front());
    ExploreReport report{
        &options, settings_label, explored.label, &state, std::nullopt, unfinished, before ? &*before : nullptr};
    if (small) report.small_cases = small->json(*options.ops);
    const nlohmann::json result = explore_result_json(report);
    if (options.resume_path) write_atomically(*options.resume_path, result.dump(1) + "\n");
    if (options.json)
        std::printf("%s\n", result.dump(1).c_str());
    else
        print_totals(options, result);
    const bool failed = !state.failures.empty() || (before && !before->failures.empty());
    return failed ? 1 : 0;
}

}  // namespace moq::runner
