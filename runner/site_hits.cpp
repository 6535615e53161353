#include "runner/site_hits.hpp"

#include <utility>
#include <vector>

#include "runner/args.hpp"
#include "runner/output.hpp"
#include "util/mutation.hpp"

namespace moq::runner {

SiteHits::SiteHits(std::string path, const nlohmann::json& sweep_settings) : path_(std::move(path)) {
    if (!mutation::mutants_enabled())
        throw UsageError(
            "--site-hits needs a build with mutants (meson configure -Dmutants=true; scripts/mutate builds one)");
    check_writable(path_, "--site-hits");
    mutation::count_generated_evaluations(true);
    report_ = {{"format", "moqsim-site-hits"}, {"version", 1}};
    report_.update(sweep_settings);
    report_["sites"] = nlohmann::json::array();
    for (const mutation::Site& site : mutation::sites())
        report_["sites"].push_back({{"name", site.name},
                                    {"category", mutation::category_name(site.category)},
                                    {"file", site.file},
                                    {"line", site.line}});
    report_["suites"] = nlohmann::json::array();
}

void SiteHits::start_suite() { mutation::reset_evaluations(); }

void SiteHits::end_suite(std::string_view suite, std::uint64_t cases, std::uint64_t run) {
    nlohmann::json evaluations = nlohmann::json::object();
    for (const mutation::Site& site : mutation::sites())
        evaluations[std::string(site.name)] = mutation::evaluations(site.name);
    // Generated mutants (a schemata build) by id, only those the sweep reached: a run
    // that never evaluates a mutant's switch cannot tell it from the original.
    nlohmann::json generated = nlohmann::json::object();
    const std::vector<mutation::GeneratedMutant> table = mutation::generated_mutants();
    const std::vector<std::uint64_t> counts = mutation::generated_evaluation_counts();
    for (std::size_t i = 0; i < table.size() && i < counts.size(); ++i)
        if (counts[i] > 0) generated[std::string(table[i].id)] = counts[i];
    report_["suites"].push_back(
        {{"suite", suite}, {"cases", cases}, {"run", run}, {"evaluations", evaluations}, {"generated", generated}});
}

void SiteHits::write() const { write_atomically(path_, report_.dump(1) + "\n"); }

}  // namespace moq::runner
