// A timed sweep's record in its result (`moqsim sweep --duration`), and how `--resume`
// continues one. Pure functions of their input (UsageError for a file that cannot be
// continued), so the fuzz targets call them too.
//
//   "seeds": [1, 42],                  the seeds run so far, every suite's cases of each
//   "timed": {"duration_seconds": 600, what each run may take unless --duration says
//             "until_seed": 1000000,    the last seed the sweep may run
//             "stopped": "time",        or "failure" (a case failed) or "finished" (until_seed ran)
//             "next_seed": 43,          the seed --resume starts from; null unless stopped by time
//             "keep_going": false,      true: it runs on past failures (--keep-going), and so does --resume
//             "runs": [{"seeds": [1, 42], "seconds": 600.4}]}   each run's seeds, in order
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "runner/options.hpp"

namespace moq::runner {

enum class TimedStop { time, failure, finished };
std::string_view timed_stop_name(TimedStop stop);

// The "timed" object of a result whose last run stopped as `stop` after running up to
// `last_seed`; `runs` lists every run's {"seeds", "seconds"}, this one last.
nlohmann::json timed_section(std::uint64_t duration_seconds, std::uint64_t until_seed, TimedStop stop,
                             std::uint64_t last_seed, nlohmann::json runs, bool keep_going = false);
// One entry of "runs".
nlohmann::json timed_run(std::uint64_t first_seed, std::uint64_t last_seed, double seconds);

// Why `result` (a sweep result with "timed", its other fields already checked) is not a
// timed sweep's record, as "timed.field: reason"; empty if it is. Its runs must cover its
// seeds one after another, a stop by time must name the seed after them, and every suite
// must have run all its cases of every seed unless the sweep stopped at a failure (which
// one that keeps going never does: it may have failures whatever stopped it).
std::string timed_problem(const nlohmann::json& result);

// `options` (as --resume FILE and the rest of the command line parsed them) set to
// continue `result` (FILE's checked contents, `label` naming it): its suites, case counts,
// strategy, mix and mutant, seeds from its next seed to its until_seed, its duration
// unless --duration gave one, and --keep-going if it kept going. UsageError if `result` is not a timed sweep, stopped
// at a failure or finished, or if the command line named a setting the file contradicts.
void resume_options(SweepOptions& options, const nlohmann::json& result, const std::string& label);

// The result of a resumed sweep: `earlier` (the file it continued) with `latest` (this
// run's result, its own seeds and suites and a "timed" whose runs list only this run)
// added: the seeds from the earlier first, every suite's counts summed, the runs joined.
nlohmann::json continued_result(const nlohmann::json& earlier, nlohmann::json latest);

}  // namespace moq::runner
