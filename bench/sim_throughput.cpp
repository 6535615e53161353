// The simulator-throughput benchmark: how fast the deterministic executor switches fibers
// and drives simulated polls. scripts/bench runs it plainly for wall-clock rates and under
// callgrind for 0 and N rounds for instruction counts.
//
//   switch    one FIFO executor, schedule points off, two tasks that each yield N times:
//             nearly every step is a bare fiber switch.
//   scenario  one named scenario (default route_flap) for seeds 1..N with the default
//             options (random strategy), as a sweep runs it.
//
// Prints one JSON line at the end with the counts and the wall-clock seconds of the
// measured loop. Wall time is read here, in the benchmark, and never in the simulator.
// A run that is not ok() is a message and exit 1; a bad argument a one-line error and
// exit 2.

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "bench_args.hpp"
#include "scenarios/scenarios.hpp"
#include "sim/executor.hpp"
#include "sim/strategy.hpp"

namespace {

using namespace moq;

constexpr const char* usage_text =
    "usage: sim_throughput --case switch|scenario --rounds N [--scenario NAME]\n"
    "\n"
    "  --case switch     one FIFO executor (schedule points off), two tasks that each\n"
    "                    yield N times: the cost of a fiber switch\n"
    "  --case scenario   the scenario NAME for seeds 1..N with the default options\n"
    "  --rounds N        yields per task, or seeds; 0 to 100000000 (0 runs only the set-up)\n"
    "  --scenario NAME   with --case scenario: one of the simulator's scenarios\n"
    "                    (default route_flap)\n"
    "Prints {\"case\":...,\"rounds\":N,\"switches\":S,\"polls\":P,\"seconds\":T} on one line;\n"
    "exit 1 if a run is not ok, 2 for a bad argument.\n";

enum class Case { switches, scenario };

struct Arguments {
    Case which = Case::switches;
    std::uint64_t rounds = 0;
    std::string_view scenario = "route_flap";
};

struct Totals {
    std::uint64_t switches = 0;
    std::uint64_t polls = 0;
};

Arguments parse(int argc, char** argv) {
    const bench::Args args{"sim_throughput"};
    Arguments arguments;
    bool have_case = false, have_rounds = false, have_scenario = false;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "-h" || arg == "--help") {
            std::fputs(usage_text, stdout);
            std::exit(0);
        }
        const auto [flag, value] = args.split_flag(argc, argv, i);
        if (flag == "--case") {
            if (value == "switch")
                arguments.which = Case::switches;
            else if (value == "scenario")
                arguments.which = Case::scenario;
            else
                args.bad_argument("--case is switch or scenario, not", value);
            have_case = true;
        } else if (flag == "--rounds") {
            arguments.rounds = args.parse_count(value, 0, 100'000'000, "--rounds takes 0 to 100000000, not");
            have_rounds = true;
        } else if (flag == "--scenario") {
            if (!scenarios::find_scenario(value)) args.bad_argument("no scenario named", value);
            arguments.scenario = value;
            have_scenario = true;
        } else {
            args.bad_argument("unknown option", flag);
        }
    }
    if (!have_case) args.bad_argument("missing option", "--case");
    if (!have_rounds) args.bad_argument("missing option", "--rounds");
    if (have_scenario && arguments.which != Case::scenario)
        args.bad_argument("--scenario goes only with --case scenario, not with --case", "switch");
    return arguments;
}

[[noreturn]] void failed(const sim::RunResult& result) {
    std::fputs(("sim_throughput: a run is not ok\n" + result.report("")).c_str(), stderr);
    std::exit(1);
}

using Seconds = std::chrono::duration<double>;

// Two yielding tasks under FIFO alternate strictly, so every step resumes one fiber and
// gets control back: the switch and the executor's bookkeeping around it, nothing else.
Totals run_switches(std::uint64_t rounds, Seconds& elapsed) {
    sim::Options options;
    options.strategy.kind = sim::StrategyKind::fifo;
    options.schedule_points = false;
    // Each task is resumed once per yield plus once to finish.
    options.max_steps = 2 * rounds + 16;
    sim::Executor executor{options};
    for (const char* name : {"ping", "pong"}) {
        executor.spawn(name, [rounds](sim::Task& task) {
            for (std::uint64_t i = 0; i < rounds; ++i) task.yield();
        });
    }
    const auto start = std::chrono::steady_clock::now();
    const sim::RunResult result = executor.run();
    elapsed = std::chrono::steady_clock::now() - start;
    if (!result.ok()) failed(result);
    return {result.switches, result.polls};
}

Totals run_scenario(const scenarios::Scenario& scenario, std::uint64_t rounds, Seconds& elapsed) {
    Totals totals;
    const auto start = std::chrono::steady_clock::now();
    for (std::uint64_t seed = 1; seed <= rounds; ++seed) {
        sim::Options options;
        options.seed = seed;
        const sim::RunResult result = scenario.run(options);
        if (!result.ok()) failed(result);
        totals.switches += result.switches;
        totals.polls += result.polls;
    }
    elapsed = std::chrono::steady_clock::now() - start;
    return totals;
}

}  // namespace

int main(int argc, char** argv) {
    const Arguments arguments = parse(argc, argv);
    Seconds elapsed{};
    Totals totals;
    if (arguments.which == Case::switches) {
        totals = run_switches(arguments.rounds, elapsed);
    } else {
        const scenarios::Scenario* scenario = scenarios::find_scenario(arguments.scenario);
        totals = run_scenario(*scenario, arguments.rounds, elapsed);
    }
    std::printf("{\"case\":\"%s\",\"rounds\":%llu,\"switches\":%llu,\"polls\":%llu,\"seconds\":%.9f}\n",
                arguments.which == Case::switches ? "switch" : "scenario",
                static_cast<unsigned long long>(arguments.rounds), static_cast<unsigned long long>(totals.switches),
                static_cast<unsigned long long>(totals.polls), elapsed.count());
    return 0;
}
