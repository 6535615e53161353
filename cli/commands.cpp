// Each moqsim command's options, with the help `moqsim COMMAND --help` prints: what each
// does, its default and its range. The runner reads and checks every value (runner/).
#include <string>

#include "cli/command_line.hpp"
#include "properties/small_scope.hpp"
#include "runner/options.hpp"
#include "runner/shard.hpp"
#include "runner/watchdog.hpp"
#include "sim/seed_range.hpp"
#include "sim/strategy.hpp"

namespace moq::cli {

namespace {

// --NAME VALUE.
void value(const Command& command, const char* name, const char* type, const std::string& help) {
    command.app->add_option(std::string("--") + name, help)->type_name(type);
}

// --NAME, which takes no value (--NAME=yes is refused, not read as true).
void flag(const Command& command, const char* name, const std::string& help) {
    command.app->add_flag(std::string("--") + name)->description(help)->disable_flag_override();
}

void positional(Command& command, const char* name, const char* type, const std::string& help) {
    command.app->add_option(name, command.positional, help)->type_name(type);
}

const std::string shard_variables =
    "The shard: GTEST_TOTAL_SHARDS and GTEST_SHARD_INDEX, TEST_TOTAL_SHARDS and TEST_SHARD_INDEX,\n"
    "JOB_COMPLETION_INDEX and MOQSIM_SHARD_COUNT (Kubernetes), or SLURM_ARRAY_TASK_ID and\n"
    "SLURM_ARRAY_TASK_COUNT from SLURM_ARRAY_TASK_MIN (Slurm); at most " +
    std::to_string(runner::max_shards) + " shards.\n";

const std::string mutant_help =
    "switch one mutation site off, or one generated mutant on (a build with -Dmutants=true;\n"
    "MOQ_MUTANT does the same for any program)";

const std::string timeout_help = "a run no simulated step ends for this long is a hang (default " +
                                 std::to_string(runner::watchdog::default_limit_seconds / 60) + "m; off: none)";

void add_sweep_options(Command& sweep) {
    value(sweep, "suite", "NAME[,NAME]", "the suites, or all (default all; moqsim list --suites names them)");
    value(sweep, "seeds", "A-B",
          "the seeds, N or A-B, at most " + std::to_string(sim::max_seed_range) + " (default MOQ_SEED, else 1)");
    value(sweep, "cases", "N",
          "cases a seed, 1 to " + std::to_string(runner::max_cases) +
              " (default MOQ_<SUITE>_CASES, else the suite's own)");
    value(sweep, "strategy", "NAME", sim::strategy_names() + " (default random)");
    value(sweep, "mix", "MIX", "fixed or swarm: whether each case draws which operations it uses (default fixed)");
    value(sweep, "mutant", "NAME", mutant_help);
    value(sweep, "json", "FILE", "the result as JSON (buckets' cases beside it, in FILE.cases/)");
    value(sweep, "site-hits", "FILE", "how often each suite evaluated each mutation site (a mutants build)");
    value(sweep, "probes", "FILE", "how often each suite hit each probe, and the first case that did");
    value(sweep, "duration", "D", "seed after seed until D has passed: 90s, 10m or 2h, at most 720h");
    value(sweep, "resume", "FILE", "go on with a timed sweep's result, from its next seed");
    value(sweep, "max-failures", "N",
          "list at most N failures a suite (default " + std::to_string(runner::default_max_failures) +
              "; all are bucketed)");
    value(sweep, "shrink-seconds", "N",
          "shrink a new bucket's first case for at most N s, 0 to " + std::to_string(runner::max_shrink_seconds) +
              " (default " + std::to_string(runner::default_shrink_seconds) + ")");
    value(sweep, "recheck", "N",
          "run one case in N twice, which must give one digest (default " + std::to_string(runner::default_recheck) +
              "; 0: none)");
    value(sweep, "known-buckets", "FILE", "buckets found before: their failures count into them, unshrunk");
    value(sweep, "ops", "N",
          "every small case of 1 to N operations, 1 to " + std::to_string(properties::max_small_ops) +
              ", once per symmetry class");
    value(sweep, "case-timeout", "D", timeout_help);
    flag(sweep, "keep-going", "run on past failures, each sorted into a bucket");
    flag(sweep, "shrink", "shrink each listed failure, case and schedule together");
    sweep.app->footer("Environment: MOQ_SEED (the seeds), MOQ_<SUITE>_CASES (cases a seed of SUITE), MOQ_MUTANT.\n" +
                      shard_variables + "Exit status: 0 passed, 1 a case failed or hung, 2 bad input.");
}

void add_replay_options(Command& replay) {
    positional(replay, "file", "FILE", "a case file (a failure saved by any command, or a corpus case)");
    value(replay, "suite", "NAME", "the suite of a sweep's case");
    value(replay, "seed", "N", "its seed (with --ops: the schedule's, default 1)");
    value(replay, "case", "I", "its index in the sweep, or in the small cases of --ops");
    value(replay, "mix", "MIX", "fixed or swarm (default fixed)");
    value(replay, "strategy", "NAME", sim::strategy_names() + " (default random; not with a file)");
    value(replay, "ops", "N", "a small case of 1 to N operations, as sweep --ops runs it");
    value(replay, "mutant", "NAME", mutant_help + "; a file's own is switched on where the build can");
    value(replay, "trace", "FILE", "the run's events, JSON lines (-: standard output, as text on a terminal)");
    value(replay, "trace-format", "FORMAT", "text or jsonl");
    value(replay, "timeline", "FILE", "the run drawn as one HTML page");
    value(replay, "save", "FILE", "keep the case and its decisions (in corpus/, every test run replays it)");
    value(replay, "case-timeout", "D", timeout_help);
    flag(replay, "shrink", "shrink the case and its schedule together before the trace and --save");
    replay.app->footer("Exit status: 0 passed, 1 the case failed or hung, 2 bad input.");
}

void add_explore_options(Command& explore) {
    value(explore, "suite", "NAME", "the suite (a case file names its own)");
    value(explore, "case", "FILE|I", "a case file (explored around its run), or an index with --seed");
    value(explore, "seed", "N", "the seed of a sweep's case");
    value(explore, "mix", "MIX", "fixed or swarm (default fixed)");
    value(explore, "ops", "N", "every small case of 1 to N operations instead, each explored");
    value(explore, "bound", "K",
          "the preemptions a schedule may spend, 0 to " + std::to_string(runner::max_bound) + " (default 2)");
    value(explore, "budget", "D", "stop after D of wall time: 90s, 10m or 2h");
    value(explore, "max-schedules", "N", "stop after N schedules");
    value(explore, "resume", "FILE", "keep the result in FILE, and go on from where it stopped");
    value(explore, "failure", "FILE", "where a failure's case file goes (default moqsim-explore-failure.json)");
    value(
        explore, "split-depth", "D",
        "shards split one case's tree at this depth, 0 to " + std::to_string(runner::max_split_depth) + " (default 4)");
    value(explore, "mutant", "NAME", mutant_help);
    value(explore, "case-timeout", "D", timeout_help);
    flag(explore, "json", "the totals as JSON on standard output");
    flag(explore, "keep-going", "run on past failures");
    flag(explore, "no-sleep-sets", "run the whole tree within the bound");
    flag(explore, "no-state-caching", "explore a state reached before again");
    explore.app->footer("Environment: MOQ_MUTANT. " + shard_variables +
                        "Exit status: 0 passed, 1 a schedule failed or hung, 2 bad input.");
}

void add_list_options(Command& list) {
    flag(list, "suites", "the suite names, one a line");
    flag(list, "strategies", "the strategies");
    flag(list, "sites", "the mutation sites");
    flag(list, "probes", "the probes: rare paths and states a sweep counts");
    flag(list, "json", "each suite's command table as JSON");
    flag(list, "small-cases", "how many small cases each suite has (with --ops)");
    value(list, "suite", "NAME[,NAME]", "with --small-cases: the suites (default all)");
    value(list, "ops", "N", "with --small-cases: of 1 to N operations");
}

}  // namespace

void CommandLine::add_commands() {
    add_sweep_options(add("sweep", "every case of the suites for every seed: the main job", &runner::sweep));
    add_replay_options(add("replay", "one case, from a file or a sweep's seed, to the same digest", &runner::replay));
    add_explore_options(add("explore", "every schedule of one case within a preemption bound", &runner::explore));
    Command& corpus = add("corpus", "replay every saved case along its decisions; each must pass", &runner::corpus);
    positional(corpus, "paths", "FILE|FOLDER", "case files and folders of them (default corpus/)");
    value(corpus, "mutant", "NAME", mutant_help);
    Command& convert = add("convert", "make saved cases of earlier moqsims version 2, in place", &runner::convert);
    positional(convert, "paths", "FILE|FOLDER", "case files and folders of them");
    Command& merge = add("merge", "the results of a sweep's or an exploration's shards as one", &runner::merge);
    positional(merge, "results", "FILE", "the shards' results");
    value(merge, "json", "FILE", "the merged result");
    add_list_options(add("list", "suites, strategies, mutation sites, probes and small cases", &runner::list));
    Command& shard = add("shard", "the shard of a run the environment names", &runner::shard);
    flag(shard, "json", "as JSON, with the variables read");
    shard.app->footer(shard_variables);
    Command& diff =
        add("trace-diff", "the first event where two traces part (exit 1 when they do)", &runner::trace_diff);
    positional(diff, "traces", "A.jsonl B.jsonl", "two traces replay --trace wrote");
}

}  // namespace moq::cli
