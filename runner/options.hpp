// What each moqsim command's arguments (and, for sweep, the environment) ask for, parsed
// and checked without touching a file or the process: every bad value is a UsageError.
// The commands then check their paths and run; the fuzz targets call these directly.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "properties/suite.hpp"
#include "runner/args.hpp"
#include "runner/shard.hpp"

namespace moq::runner {

inline constexpr std::uint64_t default_max_failures = 100;
inline constexpr std::uint64_t default_shrink_seconds = 30;
inline constexpr std::uint64_t max_shrink_seconds = 3600;
inline constexpr std::uint64_t default_recheck = 100;

struct SweepOptions {
    std::vector<const properties::Suite*> suites;  // each once, in the order named
    std::vector<std::uint64_t> cases;              // of each suite, by its position in `suites`
    SeedRange seeds{1, 1};
    sim::StrategyKind strategy = sim::StrategyKind::random;
    properties::Mix mix = properties::sweep_default_mix;
    std::optional<std::string> mutant;
    std::optional<std::string> json_path;
    std::optional<std::string> site_hits_path;
    // --probes FILE: each suite's hits of each probe and the first case that hit it
    // (cli/probe_hits.hpp).
    std::optional<std::string> probes_path;
    Shard shard;
    // Run on past failures (a timed sweep too), each sorted into a bucket (cli/buckets.hpp).
    bool keep_going = false;
    bool shrink = false;
    // --max-failures N: each suite's result lists at most N failures (every failure is
    // still counted, bucketed and, listed, replayed at the end).
    std::uint64_t max_failures = default_max_failures;
    // --shrink-seconds N: a new bucket's first case is shrunk for at most N seconds (0: not shrunk).
    std::uint64_t shrink_seconds = default_shrink_seconds;
    // --recheck N: one case in N is run twice and must give the same digest (0: none).
    std::uint64_t recheck = default_recheck;
    // --known-buckets FILE: buckets found before ({"buckets": [...]}): failures of theirs
    // count into them, unshrunk (a soak passes its buckets so far to each slice).
    std::optional<std::string> known_buckets_path;
    // A timed sweep (--duration, or --resume): seed after seed from seeds.first, every
    // suite's cases for each, until this much wall time has passed, the first failure, or
    // seeds.last. Without a seed range it may go on to max_seed_range seeds from 1.
    std::optional<std::uint64_t> duration_seconds;
    // --resume FILE: a timed sweep's result to continue (resume_options in
    // cli/timed_sweep.hpp reads it); the result goes back to FILE unless --json names another.
    std::optional<std::string> resume_path;
    // The settings the command line named (suite, cases, strategy, mix, mutant): with
    // --resume each must agree with the file's.
    std::vector<std::string> named;
    // --ops N: every small case of up to N operations (properties/small_scope.hpp) once,
    // for each seed, instead of the generated cases.
    std::optional<int> ops;
    // --case-timeout D: a run that has not ended after D of wall time is a hang, reported
    // with the command that runs it again (cli/watchdog.hpp); `off`: none.
    std::optional<std::uint64_t> case_timeout_seconds;
};
// --seeds or MOQ_SEED, --cases or MOQ_<SUITE>_CASES, and the shard from `variables`.
// With --resume the environment's seeds and case counts are not read.
SweepOptions parse_sweep_options(const Given& given, const Environment& variables);
// What a sweep result (and a site-hits file) records of the options: seeds, strategy,
// mix, mutant and shard.
nlohmann::json sweep_settings(const SweepOptions& options);

// How --trace writes the events: JSON lines, or the aligned text log (sim/trace_text.hpp).
enum class TraceFormat { text, jsonl };
TraceFormat parse_trace_format(std::string_view text);
// The format of a trace written to `path`: the one asked for; unless asked, text when
// the trace goes to standard output (`-`) and that is a terminal, JSON lines otherwise.
TraceFormat trace_format_for(const std::optional<TraceFormat>& asked, const std::string& path, bool stdout_is_terminal);

// --ops N: a small case's number of operations, 1 to properties::max_small_ops.
int parse_small_ops(std::string_view text);

struct ReplayOptions {
    std::optional<std::string> file;  // a replay file (runner/replay_file.hpp); otherwise suite, seed, index and mix
    std::optional<int> ops;           // with --ops N, index is a small case's (seed: the schedule's)
    const properties::Suite* suite = nullptr;
    std::uint64_t seed = 0;
    std::uint64_t index = 0;
    properties::Mix mix = properties::Mix::fixed;
    std::optional<sim::StrategyKind> strategy;  // a seed's case: unless given, random
    std::optional<std::string> mutant;
    std::optional<std::string> trace_path;  // `-`: standard output
    std::optional<TraceFormat> trace_format;
    std::optional<std::string> save_path;
    std::optional<std::string> timeline_path;
    bool shrink = false;
    // --case-timeout D: a run that has not ended after D of wall time is a hang, reported
    // with the command that runs it again (cli/watchdog.hpp); `off`: none.
    std::optional<std::uint64_t> case_timeout_seconds;
};
ReplayOptions parse_replay_options(const Given& given);

// explore: one case, from --case FILE or --seed N --case I, or every small case of up to
// --ops N operations; every schedule within the bound.
struct ExploreOptions {
    const properties::Suite* suite = nullptr;
    std::optional<std::string> case_file;  // a saved case (corpus/*.json); otherwise seed, index and mix
    std::optional<int> ops;                // --ops N: every small case of up to N operations, each explored
    std::uint64_t seed = 0;
    std::uint64_t index = 0;
    properties::Mix mix = properties::Mix::fixed;
    std::uint32_t bound = 2;
    std::optional<std::uint64_t> budget_seconds;
    bool sleep_sets = true;     // --no-sleep-sets: the whole tree within the bound
    bool state_caching = true;  // --no-state-caching
    bool keep_going = false;
    bool json = false;  // the totals as JSON on standard output
    std::optional<std::string> mutant;
    std::string failure_path = "moqsim-explore-failure.json";  // a failure's replay file
    // The shard from the environment (as sweep reads it): with --ops every total-th small
    // case, otherwise the subtrees below each choice at split_depth (sim::ExploreShard).
    Shard shard;
    std::uint32_t split_depth = 4;
    std::optional<std::uint64_t> max_schedules;  // --max-schedules N: a budget counted in schedules
    // --resume FILE: go on from the unfinished exploration FILE holds (if it exists), and
    // keep this run's result there.
    std::optional<std::string> resume_path;
    // --case-timeout D: a run that has not ended after D of wall time is a hang, reported
    // with the command that runs it again (cli/watchdog.hpp); `off`: none.
    std::optional<std::uint64_t> case_timeout_seconds;
};
inline constexpr std::uint32_t max_split_depth = 1000;
inline constexpr std::uint32_t max_bound = 1000;
ExploreOptions parse_explore_options(const Given& given, const Environment& variables);
// explore and replay read a suite's name the same way.
const properties::Suite* parse_suite_name(const std::string& name);

struct CorpusOptions {
    std::vector<std::string> paths;  // files and folders; corpus/ unless given
    std::optional<std::string> mutant;
};
CorpusOptions parse_corpus_options(const Given& given);

struct MergeOptions {
    std::vector<std::string> files;
    std::optional<std::string> json_path;
};
MergeOptions parse_merge_options(const Given& given);

// trace-diff A B: the two traces.
struct TraceDiffOptions {
    std::string first;
    std::string second;
};
TraceDiffOptions parse_trace_diff_options(const Given& given);

struct ListOptions {
    bool suites = false;
    bool strategies = false;
    bool sites = false;
    bool probes = false;
    bool json = false;  // the suites' command tables as JSON (with --suites, or alone)
    // --small-cases --suite S --ops N: how many small cases S has (with --json, the cases too).
    bool small_cases = false;
    std::vector<const properties::Suite*> small_suites;
    int ops = 0;
};
// None named: all three, for a reader. --small-cases: the small cases' counts alone. --suites alone: one suite name a
// line; --json: the suites as data (not with --strategies or --sites).
ListOptions parse_list_options(const Given& given);

}  // namespace moq::runner
