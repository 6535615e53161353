#include "runner/probe_hits.hpp"

#include <utility>

#include "runner/args.hpp"
#include "runner/output.hpp"
#include "runner/suite_tally.hpp"
#include "util/probe.hpp"

namespace moq::runner {

ProbeHits::ProbeHits(std::string path, const Program& program, const SweepOptions& options)
    : path_(std::move(path)), program_(program), options_(options) {
    if (!probe::probes_enabled())
        throw UsageError("--probes needs a build that counts probes (meson configure -Dprobes=enabled; build/ does)");
    check_writable(path_, "--probes");
    report_ = {{"format", "moqsim-probes"}, {"version", 1}};
    report_.update(sweep_settings(options));
    report_["probes"] = nlohmann::json::array();
    for (const probe::Probe& probe : probe::probes()) {
        names_.emplace_back(probe.name);
        report_["probes"].push_back(
            {{"name", probe.name}, {"kind", probe::kind_name(probe.kind)}, {"file", probe.file}, {"line", probe.line}});
    }
    report_["suites"] = nlohmann::json::array();
    last_ = probe::hit_counts();
}

nlohmann::json& ProbeHits::suite_entry(std::string_view suite) {
    for (nlohmann::json& entry : report_["suites"])
        if (entry["suite"] == suite) return entry;
    nlohmann::json hits = nlohmann::json::object();
    for (const std::string& name : names_) hits[name] = 0;
    report_["suites"].push_back(
        {{"suite", suite}, {"cases", 0}, {"run", 0}, {"hits", std::move(hits)}, {"first", nlohmann::json::object()}});
    return report_["suites"].back();
}

void ProbeHits::take_hits(std::string_view suite, const nlohmann::json& first) {
    const std::vector<std::uint64_t> now = probe::hit_counts();
    nlohmann::json& entry = suite_entry(suite);
    for (std::size_t i = 0; i < names_.size(); ++i) {
        const std::uint64_t added = now[i] - last_[i];
        if (added == 0) continue;
        nlohmann::json& hits = entry["hits"][names_[i]];
        hits = hits.get<std::uint64_t>() + added;
        if (!first.is_null() && !entry["first"].contains(names_[i])) entry["first"][names_[i]] = first;
    }
    last_ = now;
}

void ProbeHits::after_case(std::string_view suite, std::uint64_t seed, std::uint64_t index) {
    take_hits(
        suite,
        {{"seed", seed},
         {"case", index},
         {"replay", replay_command(program_, suite, seed, index, options_.strategy, options_.mix, options_.mutant)}});
}

void ProbeHits::after_replays(std::string_view suite) { take_hits(suite, nullptr); }

void ProbeHits::end_suite(std::string_view suite, std::uint64_t cases, std::uint64_t run) {
    nlohmann::json& entry = suite_entry(suite);
    entry["cases"] = cases;
    entry["run"] = entry["run"].get<std::uint64_t>() + run;
}

void ProbeHits::write() const { write_atomically(path_, report_.dump(1) + "\n"); }

}  // namespace moq::runner
