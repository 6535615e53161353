// moqsim sweep: every case of every chosen suite for every seed, on this shard.
#include <chrono>
#include <cstdio>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "cli/shrink.hpp"
#include "cli/site_hits.hpp"
#include "properties/suite.hpp"
#include "util/mutation.hpp"

namespace moq::cli {

namespace {

std::vector<const properties::Suite*> chosen_suites(const std::string& names) {
    if (names == "all") return properties::suites();
    std::vector<const properties::Suite*> chosen;
    std::stringstream list(names);
    std::string name;
    while (std::getline(list, name, ',')) {
        const properties::Suite* suite = properties::find_suite(name);
        if (!suite) throw UsageError("unknown suite '" + name + "' (moqsim list names them)");
        chosen.push_back(suite);
    }
    if (chosen.empty()) throw UsageError("--suite names no suite");
    return chosen;
}

// MOQ_RESUME_CASES for "resume".
std::string cases_variable(std::string_view suite) {
    std::string name = "MOQ_";
    for (char c : suite) name.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
    return name + "_CASES";
}

// --cases or MOQ_<SUITE>_CASES: at least one case, at most a hundred million a seed.
std::uint64_t parse_case_count(std::string_view text, std::string_view what) {
    const std::uint64_t cases = parse_count(text, what, 100000000);
    if (cases == 0) throw UsageError(std::string(what) + " must be at least 1, not '" + std::string(text) + "'");
    return cases;
}

}  // namespace

void activate_mutant(const std::string& name) {
    if (!mutation::mutants_enabled())
        throw UsageError(
            "--mutant needs a build with mutants (meson configure -Dmutants=true; scripts/mutate builds one)");
    if (!mutation::set_active_mutant(name)) throw UsageError("unknown mutant '" + name + "' (moqsim list --sites)");
}

namespace {

std::string replay_command(const Program& program, std::string_view suite, std::uint64_t seed, std::uint64_t index,
                           sim::StrategyKind strategy, properties::Mix mix, const std::optional<std::string>& mutant) {
    std::string command = program.name + " replay --suite " + std::string(suite) + " --seed " + std::to_string(seed) +
                          " --case " + std::to_string(index);
    if (mix != properties::Mix::fixed) command += " --mix " + std::string(properties::mix_name(mix));
    if (strategy != sim::StrategyKind::random) command += " --strategy " + std::string(sim::strategy_name(strategy));
    if (mutant) command += " --mutant " + *mutant;
    return command;
}

}  // namespace

int sweep(const Program& program, int argc, char** argv) {
    const Flags flags(argc, argv, 2, {"suite", "seeds", "cases", "strategy", "mix", "mutant", "json", "site-hits"},
                      {"keep-going", "shrink"});
    if (!flags.positional().empty()) throw UsageError("sweep takes no argument '" + flags.positional().front() + "'");
    const auto suites = chosen_suites(flags.value("suite").value_or("all"));
    SeedRange seeds{1, 1};
    if (auto text = flags.value("seeds")) {
        seeds = parse_seed_range(*text, "--seeds");
    } else if (auto variable = environment("MOQ_SEED")) {
        seeds = parse_seed_range(*variable, "MOQ_SEED");
    }
    const sim::StrategyKind strategy = parse_strategy_name(flags.value("strategy").value_or("random"));
    const properties::Mix mix =
        parse_mix_name(flags.value("mix").value_or(std::string(properties::mix_name(properties::sweep_default_mix))));
    const std::optional<std::string> mutant = flags.value("mutant");
    if (mutant) activate_mutant(*mutant);
    const std::optional<std::string> json_path = flags.value("json");
    if (json_path) check_writable(*json_path, "--json");
    const std::optional<std::string> site_hits_path = flags.value("site-hits");
    if (json_path && site_hits_path) check_different_files("--json", *json_path, "--site-hits", *site_hits_path);
    const Shard shard = shard_from_environment();
    const bool keep_going = flags.has("keep-going");
    // Every count is checked before anything runs.
    std::vector<std::uint64_t> case_counts;
    for (const properties::Suite* suite : suites) {
        std::uint64_t cases = suite->default_cases();
        if (auto text = flags.value("cases")) {
            cases = parse_case_count(*text, "--cases");
        } else if (auto variable = environment(cases_variable(suite->name()).c_str())) {
            cases = parse_case_count(*variable, cases_variable(suite->name()));
        }
        case_counts.push_back(cases);
    }
    const nlohmann::json settings = {{"seeds", {seeds.first, seeds.last}},
                                     {"strategy", sim::strategy_name(strategy)},
                                     {"mix", properties::mix_name(mix)},
                                     {"mutant", mutant ? nlohmann::json(*mutant) : nlohmann::json()},
                                     {"shard", {{"index", shard.index}, {"total", shard.total}}}};
    std::optional<SiteHits> site_hits;
    if (site_hits_path) site_hits.emplace(*site_hits_path, settings);
    acknowledge_shard();

    std::printf("moqsim sweep: seeds %llu-%llu, strategy %s, %s mix%s%s, shard %llu of %llu\n",
                static_cast<unsigned long long>(seeds.first), static_cast<unsigned long long>(seeds.last),
                std::string(sim::strategy_name(strategy)).c_str(), std::string(properties::mix_name(mix)).c_str(),
                mutant ? ", mutant " : "", mutant ? mutant->c_str() : "",
                static_cast<unsigned long long>(shard.index) + 1, static_cast<unsigned long long>(shard.total));
    std::fflush(stdout);

    nlohmann::json report = {{"format", "moqsim-sweep"}, {"version", 1}};
    report.update(settings);
    report["suites"] = nlohmann::json::array();
    bool any_failed = false;
    for (std::size_t chosen = 0; chosen < suites.size(); ++chosen) {
        const properties::Suite* suite = suites[chosen];
        const std::uint64_t cases = case_counts[chosen];
        const std::uint64_t total = seeds.count() * cases;
        const std::uint64_t mine = total / shard.total + (shard.index < total % shard.total ? 1 : 0);
        Progress progress(std::string(suite->name()), mine);
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
            const std::string command = replay_command(program, suite->name(), seed, index, strategy, mix, mutant);
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
            if (flags.has("shrink")) {
                const Shrunk shrunk = shrink(*generated, properties::RunSettings{strategy, false});
                std::printf("  shrunk in %zu steps: %s\n  which fails: %s\n", shrunk.steps,
                            shrunk.smallest->describe().c_str(), shrunk.outcome.message.c_str());
                failure["shrunk"] = shrunk.smallest->to_json();
            } else {
                std::printf("  (add --shrink to the replay to minimise it, --save corpus/NAME.json to keep it)\n");
            }
            std::fflush(stdout);
            failures.push_back(std::move(failure));
            if (!keep_going || failed >= 10) break;
        }
        progress.finish();
        if (site_hits) site_hits->end_suite(suite->name(), cases, run);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        const double rate = seconds > 0 ? static_cast<double>(run) / seconds : 0.0;
        std::printf("%s: %llu passed, %llu failed (%llu cases, %.2f s, %.0f cases/s)\n",
                    std::string(suite->name()).c_str(), static_cast<unsigned long long>(run - failed),
                    static_cast<unsigned long long>(failed), static_cast<unsigned long long>(run), seconds, rate);
        std::fflush(stdout);
        report["suites"].push_back({{"suite", suite->name()},
                                    {"cases", cases},
                                    {"run", run},
                                    {"passed", run - failed},
                                    {"failed", failed},
                                    {"seconds", seconds},
                                    {"cases_per_second", rate},
                                    {"failures", failures}});
        any_failed = any_failed || failed != 0;
    }
    if (json_path) write_atomically(*json_path, report.dump(1) + "\n");
    if (site_hits) site_hits->write();
    return any_failed ? 1 : 0;
}

}  // namespace moq::cli
