// moqsim replay: one case, from a replay file (along its decisions, to the digest it
// records), from (suite, seed, case) as a sweep ran it, or a small case. --shrink
// minimises case and schedule together (runner/shrink.hpp), --save keeps it as a replay
// file, --trace writes the run's events (JSON lines, or the text log; `-`: standard
// output), --timeline its picture (runner/timeline.hpp).
#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "properties/explore.hpp"
#include "properties/small_scope.hpp"
#include "runner/args.hpp"
#include "runner/commands.hpp"
#include "runner/options.hpp"
#include "runner/output.hpp"
#include "runner/replay_file.hpp"
#include "runner/shrink.hpp"
#include "runner/timeline.hpp"
#include "runner/watchdog.hpp"
#include "sim/explorer.hpp"
#include "sim/trace_text.hpp"
#include "util/mutation.hpp"

namespace moq::runner {

namespace {

constexpr const char* standard_output = "-";

std::string hex(std::uint64_t digest) {
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(digest));
    return text;
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

// The case to replay and how: along a file's decisions, or under a strategy from its seed.
struct Chosen {
    ReplayFile file;                            // decisions empty unless a file gave them
    std::optional<sim::StrategyKind> strategy;  // a seed's case: the strategy it runs under
    std::string label;
};

Chosen from_seed(const ReplayOptions& options) {
    Chosen chosen;
    const properties::Suite& suite = *options.suite;
    chosen.file.suite = &suite;
    chosen.file.mutant = options.mutant;
    chosen.strategy = options.strategy.value_or(sim::StrategyKind::random);
    FoundBy& found = chosen.file.found_by;
    found.strategy = chosen.strategy;
    found.seed = options.seed;
    found.index = options.index;
    if (options.ops) {
        found.way = "small-sweep";
        found.ops = options.ops;
        try {
            chosen.file.value = properties::with_seed(
                suite, *properties::small_case(suite, *options.ops, options.index), options.index, options.seed);
        } catch (const std::invalid_argument& error) {
            throw UsageError(error.what());
        }
        chosen.label = std::string(suite.name()) + " small case " + std::to_string(options.index) + " of --ops " +
                       std::to_string(*options.ops) + ", seed " + std::to_string(options.seed);
        return chosen;
    }
    found.way = "sweep";
    found.mix = options.mix;
    chosen.file.value = suite.generate(options.seed, options.index, options.mix);
    chosen.label =
        std::string(suite.name()) + " seed " + std::to_string(options.seed) + " case " + std::to_string(options.index) +
        (options.mix == properties::Mix::fixed ? "" : " (" + std::string(properties::mix_name(options.mix)) + " mix)");
    return chosen;
}

Chosen choose(const ReplayOptions& options) {
    if (!options.file) return from_seed(options);
    Chosen chosen;
    chosen.file = read_replay_file(*options.file);
    chosen.label = *options.file;
    // A file names the mutant its failure needs; --mutant may name it again.
    if (chosen.file.mutant && options.mutant && *options.mutant != *chosen.file.mutant)
        throw UsageError("--mutant " + *options.mutant + " is not the file's mutant " + *chosen.file.mutant);
    if (options.mutant) chosen.file.mutant = options.mutant;
    return chosen;
}

// The chosen case's run, its decisions recorded: along the file's, or under its strategy.
properties::CaseOutcome run_chosen(const Chosen& chosen, bool keep_trace, FILE* report) {
    properties::RunSettings settings;
    settings.keep_trace = keep_trace;
    if (chosen.strategy) {
        settings.strategy = *chosen.strategy;
        return recorded_run(*chosen.file.value, settings);
    }
    properties::DecidedRun run = properties::run_decisions(*chosen.file.value, chosen.file.decisions, settings);
    // A run that parts from the decisions is still a run of the case, judged as any: the
    // code changed since the file was saved (fixing the bug it caught may move a decision).
    if (run.left_list)
        std::fprintf(report,
                     "replay: the run parts from the file's decisions at decision %zu; each point after takes "
                     "its default\n",
                     run.diverged_at);
    // An exploration saved a run that left its prefix: leaving it again is that failure.
    if (run.left_list && chosen.file.message.starts_with(sim::nondeterministic_run)) {
        run.outcome.ok = false;
        run.outcome.message = std::string(sim::nondeterministic_run) +
                              "the run parts from the file's decisions at decision " + std::to_string(run.diverged_at) +
                              ", as a run did when explore wrote it";
    }
    return std::move(run.outcome);
}

void print_run(FILE* report, const Chosen& chosen, const properties::CaseOutcome& outcome) {
    const std::string how = chosen.strategy ? std::string(sim::strategy_name(*chosen.strategy))
                                            : std::to_string(chosen.file.decisions.size()) + " decisions";
    std::fprintf(report, "replay: %s (%s): %s\n  digest %s, %llu steps, %u preemptions\n  case: %s\n",
                 chosen.label.c_str(), how.c_str(), outcome.ok ? "passed" : ("FAILED: " + outcome.message).c_str(),
                 hex(outcome.digest).c_str(), static_cast<unsigned long long>(outcome.steps), outcome.costly_choices,
                 chosen.file.value->describe().c_str());
    if (!chosen.strategy && chosen.file.digest && *chosen.file.digest != outcome.digest)
        std::fprintf(report, "  the file records digest %s: this build runs the case otherwise\n",
                     hex(*chosen.file.digest).c_str());
}

// --shrink: the smallest case and its failing schedule (runner/shrink.hpp); `chosen`
// becomes them, replayed along the shrunk schedule from here on.
void shrink_chosen(Chosen& chosen, const properties::CaseOutcome& outcome, FILE* report) {
    auto last = std::chrono::steady_clock::now();
    ShrinkLimits limits;
    limits.progress = [&last](std::size_t tried, std::size_t taken) {
        const auto now = std::chrono::steady_clock::now();
        if (now - last < std::chrono::seconds(5)) return;
        last = now;
        std::fprintf(stderr, "shrink: %zu smaller cases tried, %zu taken\n", tried, taken);
    };
    const Shrunk shrunk = shrink(Failing{chosen.file.value.get(), outcome, chosen.strategy}, limits);
    std::fprintf(report, "shrink: %zu steps to: %s\n  which fails with %u preemptions (the run shrunk had %u): %s\n",
                 shrunk.steps, shrunk.smallest->describe().c_str(), shrunk.outcome.costly_choices,
                 outcome.costly_choices, shrunk.outcome.message.c_str());
    chosen.file.value = shrunk.smallest->clone();
    chosen.file.decisions = shrunk.outcome.decisions;
    chosen.strategy.reset();
}

void write_trace(const std::string& path, const properties::CaseOutcome& outcome, const ReplayOptions& options,
                 FILE* report) {
    const TraceFormat format = trace_format_for(options.trace_format, path, isatty(STDOUT_FILENO) != 0);
    const std::string text =
        format == TraceFormat::text ? sim::trace_text_lines(outcome.trace) : sim::trace_json_lines(outcome.trace);
    if (path == standard_output) {
        std::fwrite(text.data(), 1, text.size(), stdout);
        std::fflush(stdout);
    } else {
        write_atomically(path, text);
        std::fprintf(report, "trace: %zu events written to %s\n", outcome.trace.size(), path.c_str());
    }
}

void write_timeline(const std::string& path, const Chosen& chosen, const properties::CaseOutcome& outcome) {
    TimelineHeading heading{"moqsim replay: " + chosen.label, {}};
    heading.facts = {{"schedule", chosen.strategy ? std::string(sim::strategy_name(*chosen.strategy))
                                                  : std::to_string(chosen.file.decisions.size()) + " decisions"},
                     {"mutant", chosen.file.mutant.value_or("none")},
                     {"outcome", outcome.ok ? "passed" : "FAILED: " + outcome.message},
                     {"digest", hex(outcome.digest)},
                     {"steps", std::to_string(outcome.steps)},
                     {"events", std::to_string(outcome.trace.size())},
                     {"case", chosen.file.value->describe()}};
    write_atomically(path, render_timeline(sim::trace_json_lines(outcome.trace), heading));
}

void save(const std::string& path, const Chosen& chosen, const properties::CaseOutcome& outcome, FILE* report) {
    write_replay_file(path, replay_file_of(*chosen.file.suite, *chosen.file.value, outcome, chosen.file.mutant,
                                           chosen.file.found_by));
    std::fprintf(report, "saved: %s (moqsim replay %s runs it again; in corpus/, every test run replays it)\n",
                 path.c_str(), path.c_str());
}

}  // namespace

int replay(const Program&, const Given& given) {
    const ReplayOptions options = parse_replay_options(given);
    const bool trace_to_stdout = options.trace_path == standard_output;
    check_output_files(options, trace_to_stdout);
    Chosen chosen = choose(options);
    // A file's mutant is switched on where the build can; a case saved with one (a
    // corpus case found by a mutant) runs with every site on elsewhere.
    if (options.mutant || (chosen.file.mutant && mutation::mutants_enabled()))
        activate_mutant(*chosen.file.mutant);
    else if (chosen.file.mutant)
        std::printf("replay: this build cannot switch mutants on: %s runs with every site on\n", chosen.label.c_str());
    if (options.case_timeout_seconds) {
        watchdog::start(*options.case_timeout_seconds);
        watchdog::describe([label = chosen.label, shape = chosen.file.value->describe()](std::uint64_t, std::uint64_t) {
            return watchdog::Described{"the replay of " + label + " (" + shape + ")", ""};
        });
    }
    const bool keep_trace = options.trace_path.has_value() || options.timeline_path.has_value();
    // With the trace on standard output, what replay says goes to standard error.
    FILE* report = trace_to_stdout ? stderr : stdout;
    properties::CaseOutcome outcome = run_chosen(chosen, keep_trace, report);
    print_run(report, chosen, outcome);
    if (options.shrink && outcome.ok) std::fprintf(report, "shrink: the case passes; nothing to minimise\n");
    if (options.shrink && !outcome.ok) {
        shrink_chosen(chosen, outcome, report);
        outcome = run_chosen(chosen, keep_trace, report);
    }
    if (const auto& path = options.trace_path) write_trace(*path, outcome, options, report);
    if (const auto& path = options.timeline_path) {
        write_timeline(*path, chosen, outcome);
        std::fprintf(report, "timeline: %zu events drawn in %s\n", outcome.trace.size(), path->c_str());
    }
    if (const auto& path = options.save_path) save(*path, chosen, outcome, report);
    return outcome.ok ? 0 : 1;
}

}  // namespace moq::runner
