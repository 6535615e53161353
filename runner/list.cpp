// moqsim list: suites, strategies, mutation sites and probes.
#include <algorithm>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "properties/small_scope.hpp"
#include "properties/suite.hpp"
#include "runner/commands.hpp"
#include "runner/options.hpp"
#include "util/mutation.hpp"
#include "util/probe.hpp"

namespace moq::runner {

namespace {

// A suite's command table as data: its operations with their weights and argument domains.
nlohmann::json suite_json(const properties::Suite& suite) {
    nlohmann::json operations = nlohmann::json::array();
    for (const properties::Operation& operation : suite.operations()) {
        nlohmann::json arguments = nlohmann::json::array();
        for (const properties::Argument& argument : operation.arguments)
            arguments.push_back({{"name", argument.name}, {"low", argument.low}, {"high", argument.high}});
        operations.push_back({{"name", operation.name},
                              {"weight", operation.weight},
                              {"swarm_may_drop", operation.swarm_may_drop},
                              {"arguments", std::move(arguments)}});
    }
    return {{"name", suite.name()},
            {"summary", suite.summary()},
            {"default_cases", suite.default_cases()},
            {"operations", std::move(operations)}};
}

void list_suites(const ListOptions& options, bool alone) {
    if (options.json) {
        nlohmann::json suites = nlohmann::json::array();
        for (const properties::Suite* suite : properties::suites()) suites.push_back(suite_json(*suite));
        std::printf("%s\n", nlohmann::json{{"suites", std::move(suites)}}.dump(2).c_str());
    } else if (alone) {
        // For scripts: the names, nothing else.
        for (const properties::Suite* suite : properties::suites())
            std::printf("%s\n", std::string(suite->name()).c_str());
    } else {
        std::printf("suites:\n");
        for (const properties::Suite* suite : properties::suites())
            std::printf("  %-8s %6llu cases by default  %s\n", std::string(suite->name()).c_str(),
                        static_cast<unsigned long long>(suite->default_cases()), std::string(suite->summary()).c_str());
    }
}

// How many small cases each suite has for --ops 1 to N; with --json, every visited case
// too (index and stored JSON), written as it is found, since there may be millions.
void list_small_cases(const ListOptions& options) {
    for (const properties::Suite* suite : options.small_suites) {
        const std::string name(suite->name());
        if (!suite->small_scope()) throw UsageError("suite " + name + " declares no small scope");
        if (!options.json) {
            for (int ops = 1; ops <= options.ops; ++ops) {
                const properties::SmallScopeTotals totals = properties::count_small_cases(*suite, ops);
                std::printf("%-8s --ops %d: %llu cases, %llu symmetric, %llu to run\n", name.c_str(), ops,
                            static_cast<unsigned long long>(totals.enumerated),
                            static_cast<unsigned long long>(totals.symmetric),
                            static_cast<unsigned long long>(totals.visited));
            }
            continue;
        }
        std::printf("{\"suite\": \"%s\", \"ops\": %d, \"cases\": [", name.c_str(), options.ops);
        bool first = true;
        const properties::SmallScopeTotals totals = properties::for_each_small_case(
            *suite, options.ops, [&](const properties::Case& value, std::uint64_t index) {
                std::printf("%s\n {\"index\": %llu, \"case\": %s}", first ? "" : ",",
                            static_cast<unsigned long long>(index), value.to_json().dump().c_str());
                first = false;
                return true;
            });
        std::printf("],\n \"enumerated\": %llu, \"symmetric\": %llu, \"visited\": %llu}\n",
                    static_cast<unsigned long long>(totals.enumerated),
                    static_cast<unsigned long long>(totals.symmetric), static_cast<unsigned long long>(totals.visited));
    }
    std::fflush(stdout);
}

}  // namespace

int list(const Program&, const Given& given) {
    const ListOptions options = parse_list_options(given);
    if (options.small_cases) {
        list_small_cases(options);
        return 0;
    }
    if (options.suites) list_suites(options, !options.strategies && !options.sites && !options.probes);
    if (options.strategies) {
        std::printf("strategies:\n");
        for (const sim::StrategyKind kind : sim::strategies())
            std::printf("  %-8s %s\n", std::string(sim::strategy_name(kind)).c_str(),
                        std::string(sim::strategy_summary(kind)).c_str());
    }
    if (options.sites) {
        std::printf("mutation sites%s:\n", mutation::mutants_enabled() ? "" : " (this build cannot switch them off)");
        // The names' column as wide as the longest name.
        int width = 0;
        for (const mutation::Site& site : mutation::sites())
            width = std::max(width, static_cast<int>(site.name.size()));
        for (const mutation::Site& site : mutation::sites()) {
            std::printf("  %-*s %-9s %s:%d%s%s\n", width, std::string(site.name).c_str(),
                        std::string(mutation::category_name(site.category)).c_str(), std::string(site.file).c_str(),
                        site.line,
                        site.survivor_reason.empty() ? "" : "  survivor: ", std::string(site.survivor_reason).c_str());
        }
    }
    if (options.probes) {
        std::printf("probes%s:\n", probe::probes_enabled() ? "" : " (this build does not count them)");
        int width = 0;
        for (const probe::Probe& probe : probe::probes()) width = std::max(width, static_cast<int>(probe.name.size()));
        for (const probe::Probe& probe : probe::probes())
            std::printf("  %-*s %-5s %s:%d\n", width, std::string(probe.name).c_str(),
                        std::string(probe::kind_name(probe.kind)).c_str(), std::string(probe.file).c_str(), probe.line);
    }
    return 0;
}

}  // namespace moq::runner
