// moqsim replay: one case, from (suite, seed, case) or a corpus file; the same digest as
// in the sweep that found it; or a decisions file's schedule (moqsim explore). --shrink
// minimises it, --save keeps it in the corpus (a decisions file: as a decisions file),
// --trace writes the run's events (JSON lines, or the text log; `-`: standard output),
// --timeline its picture (cli/timeline.hpp).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "runner/args.hpp"
#include "runner/commands.hpp"
#include "runner/corpus_file.hpp"
#include "runner/decisions_file.hpp"
#include "runner/options.hpp"
#include "runner/output.hpp"
#include "runner/schedule_shrink.hpp"
#include "runner/shrink.hpp"
#include "runner/timeline.hpp"
#include "runner/watchdog.hpp"
#include "properties/explore.hpp"
#include "properties/small_scope.hpp"
#include "properties/suite.hpp"
#include "sim/explorer.hpp"
#include "sim/trace_text.hpp"

namespace moq::runner {

namespace {

constexpr const char* standard_output = "-";

std::string trace_in_format(const std::vector<sim::TraceEntry>& entries, TraceFormat format) {
    return format == TraceFormat::text ? sim::trace_text_lines(entries) : sim::trace_json_lines(entries);
}

// Every file replay writes can be written, and no two of them are the same file (a trace
// on standard output is no file).
void check_output_files(const ReplayOptions& options, bool trace_to_stdout) {
    const std::pair<const char*, std::optional<std::string>> outputs[] = {
        {"--trace", trace_to_stdout ? std::nullopt : options.trace_path},
        {"--save", options.save_path},
        {"--timeline", options.timeline_path}};
    for (const auto& [flag, path] : outputs)
        if (path) check_writable(*path, flag);
    for (std::size_t first = 0; first < std::size(outputs); ++first)
        for (std::size_t second = first + 1; second < std::size(outputs); ++second)
            if (outputs[first].second && outputs[second].second)
                check_different_files(outputs[first].first, *outputs[first].second, outputs[second].first,
                                      *outputs[second].second);
}

void write_timeline(const std::string& path, const std::string& label, sim::StrategyKind strategy,
                    const std::optional<std::string>& mutant, const properties::Case& chosen,
                    const properties::CaseOutcome& outcome) {
    char digest[17];
    std::snprintf(digest, sizeof digest, "%016llx", static_cast<unsigned long long>(outcome.digest));
    TimelineHeading heading{"moqsim replay: " + label, {}};
    heading.facts = {{"strategy", std::string(sim::strategy_name(strategy))},
                     {"mutant", mutant.value_or("none")},
                     {"outcome", outcome.ok ? "passed" : "FAILED: " + outcome.message},
                     {"digest", digest},
                     {"steps", std::to_string(outcome.steps)},
                     {"events", std::to_string(outcome.trace.size())},
                     {"case", chosen.describe()}};
    write_atomically(path, render_timeline(sim::trace_json_lines(outcome.trace), heading));
}

// The case to replay: a saved one, or a seed's, with where it came from.
struct ChosenCase {
    const properties::Suite* suite = nullptr;
    std::unique_ptr<properties::Case> value;
    sim::StrategyKind strategy = sim::StrategyKind::random;
    CorpusOrigin origin;
    std::string label;
    std::optional<DecisionsFile> decided;  // --decisions: the schedule to follow
};

// Small case `index` (properties/small_scope.hpp) as a sweep with `seed` runs it.
std::unique_ptr<properties::Case> small_case_with_seed(const properties::Suite& suite, int ops, std::uint64_t index,
                                                       std::uint64_t seed) {
    try {
        return properties::with_seed(suite, *properties::small_case(suite, ops, index), index, seed);
    } catch (const std::invalid_argument& error) {
        throw UsageError(error.what());
    }
}

ChosenCase choose_case(const ReplayOptions& options) {
    ChosenCase chosen;
    if (options.decisions_file) {
        DecisionsFile file = read_decisions_file(*options.decisions_file);
        chosen.suite = file.suite;
        chosen.value = std::move(file.value);
        chosen.strategy = file.strategy;
        chosen.origin.mutant = file.mutant;
        chosen.label = *options.decisions_file;
        chosen.decided = std::move(file);
    } else if (options.file) {
        CorpusCase stored = read_corpus_file(*options.file);
        chosen.suite = stored.suite;
        chosen.value = std::move(stored.value);
        chosen.strategy = stored.strategy;
        chosen.origin = stored.origin;
        chosen.label = *options.file;
    } else if (options.ops) {
        chosen.suite = options.suite;
        chosen.origin.seed = options.seed;
        chosen.origin.index = options.index;
        chosen.origin.mutant = options.mutant;
        chosen.value = small_case_with_seed(*options.suite, *options.ops, options.index, options.seed);
        chosen.label = std::string(chosen.suite->name()) + " small case " + std::to_string(options.index) +
                       " of --ops " + std::to_string(*options.ops) + ", seed " + std::to_string(options.seed);
    } else {
        chosen.suite = options.suite;
        chosen.origin.seed = options.seed;
        chosen.origin.index = options.index;
        chosen.origin.mutant = options.mutant;
        chosen.origin.mix = options.mix;
        chosen.value = chosen.suite->generate(options.seed, options.index, options.mix);
        chosen.label =
            std::string(chosen.suite->name()) + " seed " + std::to_string(options.seed) + " case " +
            std::to_string(options.index) +
            (options.mix == properties::Mix::fixed ? ""
                                                   : " (" + std::string(properties::mix_name(options.mix)) + " mix)");
    }
    if (options.strategy) chosen.strategy = *options.strategy;
    return chosen;
}

void write_trace(const std::string& path, const properties::CaseOutcome& outcome, const ReplayOptions& options,
                 FILE* report) {
    const TraceFormat format = trace_format_for(options.trace_format, path, isatty(STDOUT_FILENO) != 0);
    const std::string text = trace_in_format(outcome.trace, format);
    if (path == standard_output) {
        std::fwrite(text.data(), 1, text.size(), stdout);
        std::fflush(stdout);
    } else {
        write_atomically(path, text);
        std::fprintf(report, "trace: %zu events written to %s\n", outcome.trace.size(), path.c_str());
    }
}

// The chosen case's run: along the decisions file's schedule, if there is one.
properties::CaseOutcome run_chosen(const ChosenCase& chosen, const properties::RunSettings& settings) {
    if (!chosen.decided) return chosen.value->run(settings);
    properties::DecidedRun run = properties::run_decisions(*chosen.value, chosen.decided->decisions, settings);
    // Explore wrote the prefix a run left (sim::nondeterministic_run): leaving it again is
    // that failure, shown again; a run that takes it all and goes on is judged as any.
    if (chosen.decided->message.starts_with(sim::nondeterministic_run)) {
        if (run.left_list) {
            run.outcome.ok = false;
            run.outcome.message = std::string(sim::nondeterministic_run) +
                                  "the run parts from the file's decisions at decision " +
                                  std::to_string(run.diverged_at) + ", as a run did when explore wrote it";
        }
        return std::move(run.outcome);
    }
    if (!run.followed)
        throw UsageError(chosen.label + ": the run parts from the file's decisions at decision " +
                         std::to_string(run.diverged_at) + " (written by another build, or edited)");
    return std::move(run.outcome);
}

// --shrink of a decisions file: the smallest case whose exploration within the file's
// bound still fails, at the fewest preemptions; `chosen` becomes it, with its schedule.
void shrink_decided(ChosenCase& chosen, const properties::CaseOutcome& outcome, FILE* report) {
    DecisionsFile& decided = *chosen.decided;
    ScheduleShrinkLimits limits;
    limits.bound = decided.bound;
    auto last = std::chrono::steady_clock::now();
    limits.progress = [&last](std::size_t tried, std::size_t taken) {
        const auto now = std::chrono::steady_clock::now();
        if (now - last < std::chrono::seconds(5)) return;
        last = now;
        std::fprintf(stderr, "shrink: %zu smaller cases explored, %zu taken\n", tried, taken);
    };
    ShrunkSchedule shrunk = shrink_schedule(*chosen.value, decided.decisions,
                                            sim::RunVerdict{false, outcome.message, outcome.digest}, limits);
    std::fprintf(report,
                 "shrink: %zu steps to: %s\n  which fails within bound %u (the file's %u), %llu schedules explored: "
                 "%s\n",
                 shrunk.steps, shrunk.smallest->describe().c_str(), shrunk.bound, decided.bound,
                 static_cast<unsigned long long>(shrunk.schedules), shrunk.verdict.message.c_str());
    chosen.value = std::move(shrunk.smallest);
    decided.decisions = std::move(shrunk.decisions);
    decided.bound = shrunk.bound;
}

// --save of a decisions file: its (shrunk) case and schedule, as a decisions file again.
void save_decided(const std::string& path, const ChosenCase& chosen, const properties::CaseOutcome& outcome,
                  FILE* report) {
    DecisionsFile file;
    file.suite = chosen.suite;
    file.value = chosen.value->clone();
    file.strategy = chosen.strategy;
    file.mutant = chosen.decided->mutant;
    file.bound = chosen.decided->bound;
    file.message = outcome.message;
    file.digest = outcome.digest;
    file.decisions = chosen.decided->decisions;
    write_decisions_file(path, file);
    std::fprintf(report, "saved: %s (a decisions file: moqsim replay --decisions %s)\n", path.c_str(), path.c_str());
}

}  // namespace

int replay(const Program&, const std::vector<std::string>& arguments) {
    const ReplayOptions options = parse_replay_options(arguments);
    const bool trace_to_stdout = options.trace_path == standard_output;
    check_output_files(options, trace_to_stdout);

    ChosenCase chosen = choose_case(options);
    // A decisions file names the mutant its failure needs; --mutant may name it again.
    if (chosen.decided && chosen.decided->mutant && options.mutant && *options.mutant != *chosen.decided->mutant)
        throw UsageError("--mutant " + *options.mutant + " is not the decisions file's mutant " +
                         *chosen.decided->mutant);
    const std::optional<std::string> mutant =
        chosen.decided && chosen.decided->mutant ? chosen.decided->mutant : options.mutant;
    if (mutant) activate_mutant(*mutant);
    if (options.case_timeout_seconds) {
        watchdog::start(*options.case_timeout_seconds);
        watchdog::describe([label = chosen.label, shape = chosen.value->describe()](std::uint64_t, std::uint64_t) {
            return watchdog::Described{"the replay of " + label + " (" + shape + ")", ""};
        });
    }
    const sim::StrategyKind strategy = chosen.strategy;
    const properties::RunSettings settings{strategy,
                                           options.trace_path.has_value() || options.timeline_path.has_value()};
    properties::CaseOutcome outcome = run_chosen(chosen, settings);
    // With the trace on standard output, what replay says goes to standard error.
    FILE* report = trace_to_stdout ? stderr : stdout;
    std::fprintf(report, "replay: %s (%s): %s\n  digest %016llx, %llu steps\n  case: %s\n", chosen.label.c_str(),
                 std::string(sim::strategy_name(strategy)).c_str(),
                 outcome.ok ? "passed" : ("FAILED: " + outcome.message).c_str(),
                 static_cast<unsigned long long>(outcome.digest), static_cast<unsigned long long>(outcome.steps),
                 chosen.value->describe().c_str());

    if (options.shrink) {
        if (outcome.ok) {
            std::fprintf(report, "shrink: the case passes; nothing to minimise\n");
        } else if (chosen.decided) {
            shrink_decided(chosen, outcome, report);
            outcome = run_chosen(chosen, settings);
        } else {
            Shrunk shrunk = shrink(*chosen.value, properties::RunSettings{strategy, false});
            std::fprintf(report, "shrink: %zu steps to: %s\n  which fails: %s\n", shrunk.steps,
                         shrunk.smallest->describe().c_str(), shrunk.outcome.message.c_str());
            chosen.value = std::move(shrunk.smallest);
            outcome = chosen.value->run(settings);
        }
    }
    if (const auto& path = options.trace_path) write_trace(*path, outcome, options, report);
    if (const auto& path = options.timeline_path) {
        write_timeline(*path, chosen.label, strategy, mutant, *chosen.value, outcome);
        std::fprintf(report, "timeline: %zu events drawn in %s\n", outcome.trace.size(), path->c_str());
    }
    if (const auto& path = options.save_path; path && chosen.decided) {
        save_decided(*path, chosen, outcome, report);
    } else if (path) {
        write_corpus_file(*path, *chosen.suite, *chosen.value, strategy, chosen.origin, outcome);
        std::fprintf(report, "saved: %s (every test run replays it; it fails until the bug is gone)\n", path->c_str());
    }
    return outcome.ok ? 0 : 1;
}

}  // namespace moq::runner
