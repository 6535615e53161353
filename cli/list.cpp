// moqsim list: suites, strategies and mutation sites.
#include <cstdio>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "properties/suite.hpp"
#include "util/mutation.hpp"

namespace moq::cli {

int list(const Program&, const std::vector<std::string>& arguments) {
    const ListOptions options = parse_list_options(arguments);
    // --suites alone is for scripts: the suite names, one a line, nothing else.
    if (options.suites && !options.strategies && !options.sites) {
        for (const properties::Suite* suite : properties::suites())
            std::printf("%s\n", std::string(suite->name()).c_str());
        return 0;
    }
    if (options.suites) {
        std::printf("suites:\n");
        for (const properties::Suite* suite : properties::suites())
            std::printf("  %-8s %6llu cases by default  %s\n", std::string(suite->name()).c_str(),
                        static_cast<unsigned long long>(suite->default_cases()), std::string(suite->summary()).c_str());
    }
    if (options.strategies) {
        std::printf(
            "strategies:\n  fifo     the run queue in order, no preemption\n"
            "  random   a seeded uniform pick; preempts at schedule points (default)\n"
            "  pct      probabilistic concurrency testing: random priorities, change points\n");
    }
    if (options.sites) {
        std::printf("mutation sites%s:\n", mutation::mutants_enabled() ? "" : " (this build cannot switch them off)");
        for (const mutation::Site& site : mutation::sites()) {
            std::printf("  %-34s %-9s %s:%d%s%s\n", std::string(site.name).c_str(),
                        std::string(mutation::category_name(site.category)).c_str(), std::string(site.file).c_str(),
                        site.line,
                        site.survivor_reason.empty() ? "" : "  survivor: ", std::string(site.survivor_reason).c_str());
        }
    }
    return 0;
}

}  // namespace moq::cli
