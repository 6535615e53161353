// moqsim sweep --probes FILE: how often each suite's sweep hit each probe
// (core/util/probe.hpp), and the first case that hit it, written as one JSON file:
//   {"format": "moqsim-probes", "version": 1, "seeds": [1, 1], "strategy": "random",
//    "mix": "fixed", "mutant": null, "shard": {"index": 0, "total": 1},
//    "probes": [{"name": ..., "kind": "path"|"state", "file": ..., "line": ...}, ...],
//    "suites": [{"suite": "group", "cases": 500, "run": 500,
//                "hits": {"group.read.recovered": 12, ...},
//                "first": {"group.read.recovered": {"seed": 1, "case": 17,
//                                                   "replay": "moqsim replay ..."}, ...}}, ...]}
// Every probe is named in every suite's "hits", 0 where its sweep never hit it; "first"
// names only the probes hit. A timed sweep's file holds this run's seeds and hits, a
// resumed one's too (not those of the run it continues). Hits count every run the sweep made of a case, a recheck's
// second run and a failure's shrinking included, and are the same on every build type.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/commands.hpp"
#include "runner/options.hpp"

namespace moq::runner {

class ProbeHits {
public:
    // Refuses (UsageError) a build that does not count probes, or a path that cannot be written.
    ProbeHits(std::string path, const Program& program, const SweepOptions& options);

    // After each case of `suite` (whose hits are those since the previous call).
    void after_case(std::string_view suite, std::uint64_t seed, std::uint64_t index);
    // After runs of `suite` that are no case of its own (the replays of its failures):
    // their hits count, and name no first case.
    void after_replays(std::string_view suite);
    // Each suite's case counts, once its cases have run.
    void end_suite(std::string_view suite, std::uint64_t cases, std::uint64_t run);
    // The seeds a timed sweep ran (this run's alone, a resumed one's too).
    void set_seeds(std::uint64_t first, std::uint64_t last) { report_["seeds"] = {first, last}; }
    void write() const;

private:
    nlohmann::json& suite_entry(std::string_view suite);
    // Adds the hits since the previous call to `suite`'s; `first` names the case they
    // were the first hits of, if they come from one.
    void take_hits(std::string_view suite, const nlohmann::json& first);

    std::string path_;
    const Program& program_;
    const SweepOptions& options_;
    std::vector<std::string> names_;   // probe::probes() order
    std::vector<std::uint64_t> last_;  // the counters at the previous call
    nlohmann::json report_;
};

}  // namespace moq::runner
