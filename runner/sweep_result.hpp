// A sweep's JSON result (`moqsim sweep --json`) as `moqsim merge` reads it, checked field
// by field before anything is sized from it: a malformed, foreign or oversized result is
// one UsageError that names the file and the field. Pure functions of their input, so a
// fuzzer can call them.
//
//   {"format": "moqsim-sweep", "version": 1, "seeds": [1, 4], "strategy": "random",
//    "mix": "fixed", "mutant": null, "shard": {"index": 0, "total": 3},
//    "suites": [{"suite": "track", "cases": 40, "run": 27, "passed": 27, "failed": 0,
//                "seconds": 0.01, "cases_per_second": 2700, "cases_digest": "07d1...",
//                "failures": [...]}]}
//
// A timed sweep's result adds "timed" (cli/timed_sweep.hpp), and its "seeds" are those it ran.
// "buckets" (cli/buckets.hpp) sorts the failures; a result written before it has none.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace moq::runner {

// A result as `moqsim sweep` starts it: the format, the version and the sweep's
// `settings` (seeds, strategy, mix, mutant, shard), with no suite yet.
nlohmann::json new_sweep_result(const nlohmann::json& settings);
// One entry of a result's "suites", as the sweep writes it.
nlohmann::json sweep_suite_result(std::string_view suite, std::uint64_t cases, std::uint64_t run, std::uint64_t failed,
                                  double seconds, std::uint64_t cases_digest, nlohmann::json failures);
// One case's share of its suite's "cases_digest": a mix of its seed, index, verdict and
// trace digest. The suite's digest is the sum (mod 2^64) of its cases' shares, so it does
// not depend on the order they ran in: shards merged give the unsharded sweep's digest,
// and a case run twice, left out, or judged or run differently changes it.
std::uint64_t case_fingerprint(std::uint64_t seed, std::uint64_t index, bool passed, std::uint64_t digest);
// `total` (a suite's entry) with `more` (the same suite's entry of another shard, or of a
// later run of a timed sweep) added: runs, verdicts, time, digest and failures.
void add_suite_result(nlohmann::json& total, const nlohmann::json& more);
// A digest as results write it: 16 lowercase hexadecimal digits.
std::string digest_text(std::uint64_t digest);
// `run` cases in `seconds`, as a rate; 0 when no time was measured.
double cases_per_second(std::uint64_t run, double seconds);

// Why `result` is not a sweep result this moqsim reads, as "field: reason"; empty if it is.
std::string sweep_result_problem(const nlohmann::json& result);
bool is_sweep_result(const nlohmann::json& result);

// `text` (the contents of `label`) parsed and checked; UsageError "label: reason" if not.
nlohmann::json parse_sweep_result(std::string_view text, const std::string& label);

// The first thing that shows two checked results are shards of different sweeps, as
// "field VALUE in LABEL, VALUE in OTHER-LABEL"; empty if they are shards of one sweep.
std::string sweep_difference(const nlohmann::json& result, const std::string& label, const nlohmann::json& other,
                             const std::string& other_label);

}  // namespace moq::runner
