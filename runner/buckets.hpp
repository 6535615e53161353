// Failures sorted into buckets, as a sweep result's "buckets" holds them: a bucket is one
// kind of failure, keyed by the rule the failure broke, the check that caught it, the
// suite and the signature of its shrunk case (its operation kinds, in order). Pure
// functions of their input (UsageError-free: a problem is returned as text), so `moqsim
// merge` and the fuzz targets call them too.
//
//   {"id": "3f0c9a1b27de",                 a hash of rule, check, suite and signature
//    "rule": "R10", "check": "missed_wake", "suite": "resume",
//    "signature": ["update", "land", "serve"],
//    "shape": "R#: missed wake: ...",      its first message's shape (message_shape)
//    "count": 12,                          failures sorted into it
//    "strategies": ["pct"], "mixes": ["fixed"],
//    "first": {"seed": 7, "case": 140, "message": "...", "replay": "moqsim replay ..."},
//    "smallest": {"seed": 7, "case": 140, "steps": 31, "complete": true,
//                 "saved": {...the case as `moqsim replay --save` stores it...},
//                 "file": "RESULT.cases/3f0c9a1b27de.json", "replay": "moqsim replay RESULT.cases/..."}}
//
// "steps" counts the scheduling steps of the smallest case's run; "complete" is false
// when its shrink ran out of time. "file" and "replay" are there once the case was
// written beside a result (write_bucket_cases).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace moq::runner {

// The check that caught a failure and the rule it broke, from its message: the check is
// the run's outcome the message starts with ("missed_wake: ...", "livelock: ...",
// "nondeterministic: ...") or else "violated" (a model's verdict); the rule is the first
// rule id ("R10", "G4") among the message's leading "part: " prefixes ("missed_wake:
// viewer 0: R10: ..."), or "none".
struct FailureKind {
    std::string rule;
    std::string check;
};
FailureKind failure_kind(std::string_view message);

// The check of a case whose runs gave different digests.
inline constexpr std::string_view nondeterministic_check = "nondeterministic";

// `message` with every number (and list of numbers) as '#', every one-letter name (copy
// A) as '?' and what it says in parentheses left out: failures of one kind whose messages
// differ only in the sequence, copy, viewer or floor they name read the same.
std::string message_shape(std::string_view message);

// 12 hexadecimal digits, the same for the same rule, check, suite and signature on every
// machine.
std::string bucket_id(std::string_view rule, std::string_view check, std::string_view suite,
                      const std::vector<std::string>& signature);

// Why `result`'s "buckets" (when it has them; a result written before buckets has none)
// are not what a sweep writes, as "buckets[i].field: reason"; empty if they are.
std::string buckets_problem(const nlohmann::json& result);

// Why `known` ({"buckets": [...]}, as --known-buckets reads it) holds no buckets of any
// suite as a sweep writes them; empty if it does.
std::string known_buckets_problem(const nlohmann::json& known);

// `into` (a list of buckets) with `more` joined. A bucket of an id already there, or of
// its suite, rule, check and shape (found apart, by another shard or run, whose shrink
// ended elsewhere), adds its count, its strategies and mixes, keeps the earlier (seed,
// case) as first and the smaller case (fewer steps, then the earlier) as smallest, whose
// id and signature the joined bucket takes; any other is added at the end.
void join_buckets(nlohmann::json& into, const nlohmann::json& more);

// "buckets: N" and two lines a bucket (its id, rule, check, suite, count and smallest
// case's operations; the command that replays that case), or nothing for no bucket.
std::string bucket_lines(const nlohmann::json& buckets);

// Where a result's bucket keeps its smallest case: RESULT.cases/ID.json beside the result.
std::string bucket_case_folder(const std::string& result_path);
// Refuses (UsageError) a result path whose case folder could not be made: a file of that
// name is there.
void check_bucket_case_folder(const std::string& result_path);
// Writes each bucket's smallest case into the result's case folder (atomically, the
// folder made if need be) and sets its "file" and a "replay" of `program` that runs it.
void write_bucket_cases(nlohmann::json& buckets, const std::string& result_path, const std::string& program);

}  // namespace moq::runner
