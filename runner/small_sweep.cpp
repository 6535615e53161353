#include "runner/small_sweep.hpp"

#include <chrono>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "runner/output.hpp"
#include "runner/sweep_result.hpp"
#include "runner/watchdog.hpp"
#include "properties/small_scope.hpp"

namespace moq::runner {

namespace {

using Clock = std::chrono::steady_clock;

unsigned long long number(std::uint64_t value) { return static_cast<unsigned long long>(value); }

// One suite's small cases, run and counted.
class SmallTally {
public:
    SmallTally(const Program& program, const SweepOptions& options, const properties::Suite& suite)
        : program_(program), options_(options), suite_(suite) {}

    // Every small case for every seed on this shard, until a failure (unless --keep-going).
    void run_all() {
        const properties::SmallScopeTotals scope = properties::count_small_cases(suite_, *options_.ops);
        totals_ = scope;
        Progress progress(std::string(suite_.name()),
                          shard_share(scope.visited * options_.seeds.count(), options_.shard));
        const Clock::time_point started = Clock::now();
        std::uint64_t ordinal = 0;
        bool going = true;
        for (std::uint64_t seed = options_.seeds.first; going; ++seed) {
            properties::for_each_small_case(suite_, *options_.ops,
                                            [&](const properties::Case& value, std::uint64_t index) {
                                                if (ordinal++ % options_.shard.total != options_.shard.index)
                                                    return true;
                                                going = run_one(value, index, seed) || options_.keep_going;
                                                progress.advance(run_);
                                                return going;
                                            });
            if (seed == options_.seeds.last) break;
        }
        progress.finish();
        seconds_ = std::chrono::duration<double>(Clock::now() - started).count();
    }

    // Every listed failure run again: false if one gave another digest.
    bool replay_failures() const {
        bool same = true;
        for (const nlohmann::json& failure : failures_) {
            // Run as the sweep ran it: the watchdog names it as it named the case.
            watchdog::at(failure["case"].get<std::uint64_t>(), failure["seed"].get<std::uint64_t>());
            const std::uint64_t index = failure["case"].get<std::uint64_t>();
            const auto value = properties::with_seed(suite_, *properties::small_case(suite_, *options_.ops, index),
                                                     index, failure["seed"].get<std::uint64_t>());
            const properties::CaseOutcome again = value->run(properties::RunSettings{options_.strategy, false});
            if (again.digest == failure["digest"].get<std::uint64_t>()) continue;
            same = false;
            std::printf("%s: case %llu gave digest %016llx on its replay, %016llx in the sweep: not deterministic\n",
                        std::string(suite_.name()).c_str(), number(failure["case"].get<std::uint64_t>()),
                        number(again.digest), number(failure["digest"].get<std::uint64_t>()));
        }
        return same;
    }

    [[nodiscard]] std::uint64_t failed() const { return failed_; }

    [[nodiscard]] nlohmann::json result() const {
        return {{"suite", suite_.name()},
                {"enumerated", totals_.enumerated},
                {"symmetric", totals_.symmetric},
                {"visited", totals_.visited},
                {"run", run_},
                {"passed", run_ - failed_},
                {"failed", failed_},
                {"seconds", seconds_},
                {"cases_per_second", cases_per_second(run_, seconds_)},
                {"failures", failures_}};
    }

private:
    bool run_one(const properties::Case& value, std::uint64_t index, std::uint64_t seed) {
        watchdog::describe([program = &program_, suite = suite_.name(), ops = *options_.ops,
                            strategy = options_.strategy,
                            mutant = options_.mutant](std::uint64_t hung_index, std::uint64_t hung_seed) {
            return watchdog::Described{
                std::string(suite) + " small case " + std::to_string(hung_index) + ", seed " +
                    std::to_string(hung_seed),
                small_replay_command(*program, suite, ops, hung_index, hung_seed, strategy, mutant)};
        });
        watchdog::at(index, seed);
        const auto seeded = properties::with_seed(suite_, value, index, seed);
        const properties::CaseOutcome outcome = seeded->run(properties::RunSettings{options_.strategy, false});
        ++run_;
        if (outcome.ok) return true;
        ++failed_;
        if (failures_.size() >= options_.max_failures) return false;
        const std::string command = small_replay_command(program_, suite_.name(), *options_.ops, index, seed,
                                                         options_.strategy, options_.mutant);
        std::printf("\n%s: small case %llu, seed %llu FAILED: %s\n  case: %s\n  replay: %s\n",
                    std::string(suite_.name()).c_str(), number(index), number(seed), outcome.message.c_str(),
                    seeded->describe().c_str(), command.c_str());
        std::fflush(stdout);
        failures_.push_back({{"seed", seed},
                             {"case", index},
                             {"message", outcome.message},
                             {"digest", outcome.digest},
                             {"replay", command}});
        return false;
    }

    const Program& program_;
    const SweepOptions& options_;
    const properties::Suite& suite_;
    properties::SmallScopeTotals totals_;
    std::uint64_t run_ = 0;
    std::uint64_t failed_ = 0;
    double seconds_ = 0;
    nlohmann::json failures_ = nlohmann::json::array();
};

void print_suite_result(const nlohmann::json& result) {
    std::printf("%s: %llu small cases, %llu symmetric, %llu run, %llu failed (%.2f s, %.0f cases/s)\n",
                result["suite"].get<std::string>().c_str(), number(result["enumerated"].get<std::uint64_t>()),
                number(result["symmetric"].get<std::uint64_t>()), number(result["run"].get<std::uint64_t>()),
                number(result["failed"].get<std::uint64_t>()), result["seconds"].get<double>(),
                result["cases_per_second"].get<double>());
    std::fflush(stdout);
}

}  // namespace

std::string small_replay_command(const Program& program, std::string_view suite, int ops, std::uint64_t index,
                                 std::uint64_t seed, sim::StrategyKind strategy,
                                 const std::optional<std::string>& mutant) {
    std::string command = program.name + " replay --suite " + std::string(suite) + " --ops " + std::to_string(ops) +
                          " --case " + std::to_string(index) + " --seed " + std::to_string(seed);
    if (strategy != sim::StrategyKind::random) command += " --strategy " + std::string(sim::strategy_name(strategy));
    if (mutant) command += " --mutant " + *mutant;
    return command;
}

int small_sweep(const Program& program, const SweepOptions& options) {
    std::printf(
        "moqsim sweep: every small case of up to %d operations, seeds %llu-%llu, strategy %s%s, shard %llu of %llu\n",
        *options.ops, number(options.seeds.first), number(options.seeds.last),
        std::string(sim::strategy_name(options.strategy)).c_str(),
        options.mutant ? (", mutant " + *options.mutant).c_str() : "", number(options.shard.index) + 1,
        number(options.shard.total));
    std::fflush(stdout);
    nlohmann::json report = {{"format", "moqsim-small-sweep"},
                             {"version", 1},
                             {"ops", *options.ops},
                             {"seeds", {options.seeds.first, options.seeds.last}},
                             {"strategy", sim::strategy_name(options.strategy)},
                             {"mutant", options.mutant ? nlohmann::json(*options.mutant) : nlohmann::json()},
                             {"shard", {{"index", options.shard.index}, {"total", options.shard.total}}},
                             {"suites", nlohmann::json::array()}};
    bool failed = false;
    for (const properties::Suite* suite : options.suites) {
        SmallTally tally(program, options, *suite);
        tally.run_all();
        failed = !tally.replay_failures() || tally.failed() != 0 || failed;
        report["suites"].push_back(tally.result());
        print_suite_result(report["suites"].back());
        if (tally.failed() != 0 && !options.keep_going) break;
    }
    if (options.json_path) write_atomically(*options.json_path, report.dump(1) + "\n");
    return failed ? 1 : 0;
}

}  // namespace moq::runner
