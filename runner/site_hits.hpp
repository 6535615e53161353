// moqsim sweep --site-hits FILE: how often each suite's sweep evaluated each mutation
// site (the counters of core/util/mutation.hpp, so only a mutants build has them),
// written as one JSON file:
//   {"format": "moqsim-site-hits", "version": 1, "seeds": [1, 1], "strategy": "random",
//    "mutant": null, "shard": {"index": 0, "total": 1},
//    "sites": [{"name": ..., "category": ..., "file": ..., "line": ...}, ...],
//    "suites": [{"suite": "resume", "cases": 2000, "run": 2000,
//                "evaluations": {"resume.walk.register": 5021, ...},
//                "generated": {"gen.model/group.cpp:44:28.rel_flip": 310, ...}}, ...]}
// Every site is named in every suite's "evaluations", 0 where that sweep never reached it;
// "generated" names the generated mutants (a schemata build) whose switch it evaluated.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace moq::runner {

class SiteHits {
public:
    // Refuses (UsageError) a build that cannot count, or a path that cannot be written.
    SiteHits(std::string path, const nlohmann::json& sweep_settings);

    // Called around each suite's sweep: the counts between the two are that suite's.
    void start_suite();
    void end_suite(std::string_view suite, std::uint64_t cases, std::uint64_t run);
    void write() const;

private:
    std::string path_;
    nlohmann::json report_;
};

}  // namespace moq::runner
