// moqsim: seeded property sweeps of the real core in the simulator, exact replay of a
// failing case, shrinking, the corpus, shard merging, and the list of what there is.
#include <cstdio>
#include <exception>
#include <filesystem>
#include <new>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/args.hpp"
#include "runner/commands.hpp"
#include "runner/watchdog.hpp"

namespace {

constexpr const char* usage_text =
    "usage: moqsim COMMAND [options]\n"
    "\n"
    "  sweep   [--suite NAME[,NAME]|all] [--seeds A-B] [--cases N] [--strategy fifo|random|pct]\n"
    "          [--mix fixed|swarm] [--mutant NAME] [--json FILE] [--site-hits FILE] [--probes FILE]\n"
    "          [--keep-going] [--shrink]\n"
    "          every case of the suites for every seed (defaults: all, MOQ_SEED or 1,\n"
    "          MOQ_<SUITE>_CASES or the suite's own, random, the fixed mix; swarm: each case\n"
    "          draws which operation kinds it uses); shards from GTEST_TOTAL_SHARDS /\n"
    "          GTEST_SHARD_INDEX, TEST_TOTAL_SHARDS / TEST_SHARD_INDEX, JOB_COMPLETION_INDEX /\n"
    "          MOQSIM_SHARD_COUNT (Kubernetes) or SLURM_ARRAY_TASK_ID / SLURM_ARRAY_TASK_COUNT\n"
    "          (Slurm, from SLURM_ARRAY_TASK_MIN); --site-hits (a mutants build) writes how\n"
    "          often each suite evaluated each mutation site; --probes FILE (a build with probes, as\n"
    "          build/) how often each suite hit each probe and the first case that did\n"
    "          [--duration 10m] seed after seed until the time is up (s, m, h), the first\n"
    "          failure (unless --keep-going) or the last of --seeds; the result records the next seed\n"
    "          [--keep-going] run on past failures; each failure goes into a bucket (its rule, check\n"
    "          and the operations of its shrunk case), listed in the result with its smallest\n"
    "          case, kept beside --json FILE as FILE.cases/ID.json\n"
    "          [--shrink-seconds N] a new bucket's first case is shrunk for at most N s (default 30;\n"
    "          0: not shrunk)   [--max-failures N] each suite lists at most N failures (default 100;\n"
    "          all are counted and bucketed)   [--recheck N] one case in N runs twice and must give\n"
    "          the same digest (default 100; 0: none); every listed failure is replayed at the end\n"
    "  sweep   --resume FILE [--duration D] [--json FILE]   continues a timed sweep's result\n"
    "          from its next seed with its settings (written back to FILE unless --json)\n"
    "  sweep   --ops N [--suite NAME[,NAME]|all] [--seeds A-B] [--strategy S] [--mutant NAME] [--json FILE]\n"
    "          [--keep-going] [--max-failures N]   every small case of 1 to N (at most 6) operations each\n"
    "          suite declares, once per symmetry class, for each seed (which picks the schedule)\n"
    "  replay  --suite NAME --seed N --case N [--mix M] [--strategy S] [--mutant NAME]   or   replay FILE.json\n"
    "  replay  --suite NAME --ops N --case I [--seed N]   small case I of sweep --ops N (seed: 1 unless given)\n"
    "          [--shrink] [--save corpus/NAME.json] [--trace FILE|-] [--trace-format text|jsonl]\n"
    "          [--timeline FILE.html]\n"
    "          --trace -: the events on standard output, as text on a terminal (else JSON lines)\n"
    "  replay  --decisions FILE [--shrink] [--save FILE] [--trace FILE|-] [--trace-format text|jsonl]\n"
    "          [--timeline FILE.html]   the schedule explore wrote for a failure: its case, mutant and\n"
    "          every decision. --shrink: the smallest case whose exploration within the file's bound\n"
    "          still fails, at the fewest preemptions; --save writes it as a decisions file\n"
    "  explore --suite NAME (--case FILE | --seed N --case I [--mix M] | --ops N) [--bound K] [--budget 10m]\n"
    "          [--json] [--keep-going] [--no-sleep-sets] [--no-state-caching] [--mutant NAME] [--failure FILE]\n"
    "          every schedule of one case within K preemptions (default 2): which task runs, a switch\n"
    "          at each schedule point, timer ties, the drive's open faults; each run judged by the\n"
    "          suite's model; sleep sets and state caching (where a suite gives its state) prune.\n"
    "          Totals (schedules, what each reduction saved, distinct states, deepest decision list,\n"
    "          schedules/s, exhaustive or stopped by the budget), as JSON with --json; a failure's\n"
    "          decisions go to --failure FILE (default moqsim-explore-failure.json) with its replay\n"
    "          command. --ops N explores every small case of up to N operations (as sweep --ops\n"
    "          enumerates them) in turn, to the first failure unless --keep-going.\n"
    "          [--max-schedules N] a budget in schedules. [--resume FILE] keeps the result in FILE and,\n"
    "          stopped by a budget, where to go on: the same command again goes on from there.\n"
    "          The shard comes from the environment (as sweep's): --ops shards take every total-th\n"
    "          small case, one case's shards the subtrees below each choice at [--split-depth D] (4).\n"
    "  corpus  [FILE|FOLDER ...] [--mutant NAME]   replays every saved case (default: corpus/);\n"
    "          each must pass\n"
    "  merge   RESULT.json ... [--json FILE]   the results of several shards as one, buckets joined\n"
    "          (a sweep's), or counts added (an exploration's: its --json or --resume files)\n"
    "  list    [--suites] [--strategies] [--sites] [--probes]   (none: the first three); --suites alone: one\n"
    "          suite name a line; --probes: the probes, each a rare path or state a sweep counts (--probes FILE)\n"
    "          [--json]   each suite's command table: name, default cases, and each operation's name,\n"
    "          weight, whether a swarm case may drop it, and its arguments' ranges [low, high)\n"
    "  list    --small-cases --ops N [--suite NAME[,NAME]|all] [--json]   how many small cases of 1 to N\n"
    "          operations each suite has, enumerated, symmetric and to run; --json: every case run, with its index\n"
    "  shard   [--json]   the shard of a run the environment names (the variables sweep reads):\n"
    "          \"shard INDEX of TOTAL\", or JSON with the variables read; tells a runner's status\n"
    "          file sharding is understood\n"
    "  trace-diff A.jsonl B.jsonl   the first event where two traces (replay --trace) part;\n"
    "          exit 0 when they are the same, 1 when they part\n"
    "\n"
    "\n"
    "sweep, replay and explore take [--case-timeout D] (default 5m; off: none): when no simulated\n"
    "run has begun for D of wall time, one loops where no schedule point can stop it, a hang;\n"
    "moqsim then prints what ran (a sweep's case with its replay command) and exits 1.\n"
    "\n"
    "Exit status: 0 passed, 1 a case failed (or hung), 2 bad input, 3 an internal error.\n";

constexpr int bad_input_status = 2;
constexpr int internal_error_status = 3;

// Prints "moqsim: MESSAGE" as one line: a control character a user's value carried into
// the message (a newline in a suite name) is shown escaped, not acted on.
int fail(std::string_view message, int status) {
    std::string line = "moqsim: ";
    for (const char c : message) {
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\x%02x", static_cast<unsigned>(static_cast<unsigned char>(c)));
            line += escaped;
        } else {
            line += c;
        }
    }
    line += '\n';
    std::fputs(line.c_str(), stderr);
    return status;
}

}  // namespace

int main(int argc, char** argv) {
    const moq::runner::Program program{argc > 0 ? argv[0] : "moqsim"};
    // The watchdog's descriptions point at `program`: it stops before that goes.
    struct StopWatchdog {
        StopWatchdog() = default;
        StopWatchdog(const StopWatchdog&) = delete;
        StopWatchdog& operator=(const StopWatchdog&) = delete;
        ~StopWatchdog() { moq::runner::watchdog::stop(); }
    } const stop_watchdog;
    if (argc < 2) {
        return fail("no command (moqsim --help lists them)", bad_input_status);
    }
    const std::string_view command = argv[1];
    try {
        const std::vector<std::string> arguments(argv + 2, argv + argc);
        if (command == "sweep") return moq::runner::sweep(program, arguments);
        if (command == "replay") return moq::runner::replay(program, arguments);
        if (command == "explore") return moq::runner::explore(program, arguments);
        if (command == "corpus") return moq::runner::corpus(program, arguments);
        if (command == "merge") return moq::runner::merge(program, arguments);
        if (command == "list") return moq::runner::list(program, arguments);
        if (command == "shard") return moq::runner::shard(program, arguments);
        if (command == "trace-diff") return moq::runner::trace_diff(program, arguments);
        if (command == "--help" || command == "help" || command == "-h") {
            std::fputs(usage_text, stdout);
            return 0;
        }
        throw moq::runner::UsageError("unknown command '" + std::string(command) + "' (moqsim --help)");
    } catch (const moq::runner::UsageError& error) {
        return fail(error.what(), bad_input_status);
    } catch (const nlohmann::json::exception& error) {
        // A JSON input whose fields have the wrong shape.
        return fail(std::string("malformed JSON input (") + error.what() + ")", bad_input_status);
    } catch (const std::filesystem::filesystem_error& error) {
        // A file or folder named on the command line that cannot be read or listed.
        return fail(error.what(), bad_input_status);
    } catch (const std::bad_alloc&) {
        // Every input size is checked before anything is sized from it, so this is ours.
        return fail("internal error: out of memory", internal_error_status);
    } catch (const std::system_error& error) {
        return fail(std::string("internal error: ") + error.what(), internal_error_status);
    } catch (const std::exception& error) {
        return fail(std::string("internal error: ") + error.what(), internal_error_status);
    } catch (...) {
        return fail("internal error: an unknown exception", internal_error_status);
    }
}
