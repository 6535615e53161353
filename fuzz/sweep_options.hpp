// What every sweep's options that parse must satisfy (the arguments and environment
// targets check it): the seed range is a range and prints back as itself, every suite is
// named once with a count in range, the shard is one of its total; and the result the
// sweep writes with them, every case of its shard run and passed, is one merge reads. A
// timed sweep's (--duration) is not sharded, and its result after its first seed, stopped
// by time or finished (and keeping going or not), reads back as a timed sweep's too.
#pragma once

#include <string>

#include "runner/options.hpp"
#include "runner/sweep_result.hpp"
#include "runner/timed_sweep.hpp"
#include "fuzz/support.hpp"
#include "sim/seed_range.hpp"

namespace moq::fuzz {

inline void check_seed_range(const sim::SeedRange& range) {
    require(range.first <= range.last && range.last - range.first < sim::max_seed_range, "a seed range out of bounds");
    const std::string printed = std::to_string(range.first) + "-" + std::to_string(range.last);
    const sim::ParsedSeedRange again = sim::parse_seed_range(printed);
    require(again.range && again.range->first == range.first && again.range->last == range.last,
            "a seed range printed back reads as another");
}

inline void check_sweep_options(const runner::SweepOptions& options) {
    check_seed_range(options.seeds);
    require(!options.suites.empty() && options.cases.size() == options.suites.size(), "a sweep of no suite");
    require(
        options.shard.total >= 1 && options.shard.total <= runner::max_shards && options.shard.index < options.shard.total,
        "a shard out of range");
    nlohmann::json result = runner::new_sweep_result(runner::sweep_settings(options));
    for (std::size_t i = 0; i < options.suites.size(); ++i) {
        require(options.cases[i] >= 1 && options.cases[i] <= runner::max_cases, "a case count out of range");
        const std::uint64_t run = runner::shard_share(options.seeds.count() * options.cases[i], options.shard);
        result["suites"].push_back(runner::sweep_suite_result(options.suites[i]->name(), options.cases[i], run, 0, 1.0, 0,
                                                           nlohmann::json::array()));
    }
    const std::string problem = runner::sweep_result_problem(result);
    if (!problem.empty()) finding("the sweep would write a result merge refuses: " + problem);
    if (!options.duration_seconds) return;
    require(options.shard.total == 1 && !options.site_hits_path, "a timed sweep with shards or --site-hits");
    require(options.shrink_seconds <= runner::max_shrink_seconds, "a shrink time out of range");
    require(*options.duration_seconds >= 1 && *options.duration_seconds <= runner::max_duration_seconds,
            "a duration out of range");
    // After its first seed: every suite's cases of that seed, then stopped by time (or
    // finished, when that seed was the last).
    const std::uint64_t first = options.seeds.first;
    result["seeds"] = {first, first};
    for (std::size_t i = 0; i < options.suites.size(); ++i)
        result["suites"][i] = runner::sweep_suite_result(options.suites[i]->name(), options.cases[i], options.cases[i], 0,
                                                      1.0, 0, nlohmann::json::array());
    const runner::TimedStop stop = options.seeds.last == first ? runner::TimedStop::finished : runner::TimedStop::time;
    result["timed"] =
        runner::timed_section(*options.duration_seconds, options.seeds.last, stop, first,
                           nlohmann::json::array({runner::timed_run(first, first, 1.0)}), options.keep_going);
    if (const std::string timed = runner::sweep_result_problem(result); !timed.empty())
        finding("a timed sweep would write a result it cannot resume: " + timed);
}

}  // namespace moq::fuzz
