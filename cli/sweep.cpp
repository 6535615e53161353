// moqsim sweep: every case of every chosen suite for every seed, on this shard.
#include <chrono>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "cli/shrink.hpp"
#include "cli/site_hits.hpp"
#include "cli/sweep_result.hpp"
#include "properties/suite.hpp"
#include "util/mutation.hpp"

namespace moq::cli {

void activate_mutant(const std::string& name) {
    if (!mutation::mutants_enabled())
        throw UsageError(
            "--mutant needs a build with mutants (meson configure -Dmutants=true; scripts/mutate builds one)");
    if (!mutation::set_active_mutant(name)) throw UsageError("unknown mutant '" + name + "' (moqsim list --sites)");
}

std::string replay_command(const Program& program, std::string_view suite, std::uint64_t seed, std::uint64_t index,
                           sim::StrategyKind strategy, properties::Mix mix, const std::optional<std::string>& mutant) {
    std::string command = program.name + " replay --suite " + std::string(suite) + " --seed " + std::to_string(seed) +
                          " --case " + std::to_string(index);
    if (mix != properties::Mix::fixed) command += " --mix " + std::string(properties::mix_name(mix));
    if (strategy != sim::StrategyKind::random) command += " --strategy " + std::string(sim::strategy_name(strategy));
    if (mutant) command += " --mutant " + *mutant;
    return command;
}

int sweep(const Program& program, const std::vector<std::string>& arguments) {
    const SweepOptions options = parse_sweep_options(arguments, process_environment());
    if (options.mutant) activate_mutant(*options.mutant);
    if (options.json_path) check_writable(*options.json_path, "--json");
    if (options.json_path && options.site_hits_path)
        check_different_files("--json", *options.json_path, "--site-hits", *options.site_hits_path);
    const nlohmann::json settings = sweep_settings(options);
    std::optional<SiteHits> site_hits;
    if (options.site_hits_path) site_hits.emplace(*options.site_hits_path, settings);
    acknowledge_shard();

    const SeedRange seeds = options.seeds;
    const sim::StrategyKind strategy = options.strategy;
    const properties::Mix mix = options.mix;
    const Shard shard = options.shard;
    std::printf("moqsim sweep: seeds %llu-%llu, strategy %s, %s mix%s%s, shard %llu of %llu\n",
                static_cast<unsigned long long>(seeds.first), static_cast<unsigned long long>(seeds.last),
                std::string(sim::strategy_name(strategy)).c_str(), std::string(properties::mix_name(mix)).c_str(),
                options.mutant ? ", mutant " : "", options.mutant ? options.mutant->c_str() : "",
                static_cast<unsigned long long>(shard.index) + 1, static_cast<unsigned long long>(shard.total));
    std::fflush(stdout);

    nlohmann::json report = new_sweep_result(settings);
    bool any_failed = false;
    for (std::size_t chosen = 0; chosen < options.suites.size(); ++chosen) {
        const properties::Suite* suite = options.suites[chosen];
        const std::uint64_t cases = options.cases[chosen];
        const std::uint64_t total = seeds.count() * cases;
        Progress progress(std::string(suite->name()), shard_share(total, shard));
        nlohmann::json failures = nlohmann::json::array();
        std::uint64_t run = 0;
        std::uint64_t failed = 0;
        const auto started = std::chrono::steady_clock::now();
        if (site_hits) site_hits->start_suite();
        for (std::uint64_t ordinal = shard.index; ordinal < total; ordinal += shard.total) {
            const std::uint64_t seed = seeds.first + ordinal / cases;
            const std::uint64_t index = ordinal % cases;
            const auto generated = suite->generate(seed, index, mix);
            const properties::CaseOutcome outcome = generated->run(properties::RunSettings{strategy, false});
            ++run;
            progress.advance(run);
            if (outcome.ok) continue;
            ++failed;
            const std::string command =
                replay_command(program, suite->name(), seed, index, strategy, mix, options.mutant);
            std::printf("\n%s: seed %llu case %llu FAILED: %s\n  case: %s\n  replay: %s\n",
                        std::string(suite->name()).c_str(), static_cast<unsigned long long>(seed),
                        static_cast<unsigned long long>(index), outcome.message.c_str(), generated->describe().c_str(),
                        command.c_str());
            // cases_run: how many cases this sweep ran up to and including this one.
            nlohmann::json failure = {{"seed", seed},
                                      {"case", index},
                                      {"cases_run", run},
                                      {"message", outcome.message},
                                      {"digest", outcome.digest},
                                      {"replay", command}};
            if (options.shrink) {
                const Shrunk shrunk = shrink(*generated, properties::RunSettings{strategy, false});
                std::printf("  shrunk in %zu steps: %s\n  which fails: %s\n", shrunk.steps,
                            shrunk.smallest->describe().c_str(), shrunk.outcome.message.c_str());
                failure["shrunk"] = shrunk.smallest->to_json();
            } else {
                std::printf("  (add --shrink to the replay to minimise it, --save corpus/NAME.json to keep it)\n");
            }
            std::fflush(stdout);
            failures.push_back(std::move(failure));
            if (!options.keep_going || failed >= 10) break;
        }
        progress.finish();
        if (site_hits) site_hits->end_suite(suite->name(), cases, run);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        nlohmann::json result = sweep_suite_result(suite->name(), cases, run, failed, seconds, std::move(failures));
        std::printf("%s: %llu passed, %llu failed (%llu cases, %.2f s, %.0f cases/s)\n",
                    std::string(suite->name()).c_str(), static_cast<unsigned long long>(run - failed),
                    static_cast<unsigned long long>(failed), static_cast<unsigned long long>(run), seconds,
                    result["cases_per_second"].get<double>());
        std::fflush(stdout);
        report["suites"].push_back(std::move(result));
        any_failed = any_failed || failed != 0;
    }
    if (options.json_path) write_atomically(*options.json_path, report.dump(1) + "\n");
    if (site_hits) site_hits->write();
    return any_failed ? 1 : 0;
}

}  // namespace moq::cli
