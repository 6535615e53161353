// What every simulated suite shares: how a case drives the executor, how a run becomes
// an outcome, and the checked JSON readers for stored cases.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>
#include <rapidcheck.h>

#include "properties/suite.hpp"
#include "sim/executor.hpp"

namespace moq::properties {

// How the reader tasks of a case are polled (see docs/TESTING.md).
// `inlined`: a wake polls the parked task at once (as runtimes that run a woken task on
// the waking thread do), and the core's wake points may switch tasks.
enum class Drive : std::uint8_t { woken, spurious, fresh, eager, inlined };

// The first four modes (the group suite's driver tells its model after each operation).
rc::Gen<Drive> drive_generator();
// Every mode, `inline` too: for suites whose driver tells its model of an operation
// before making it and knows when its wakes are still under way (a wake may run the
// reader inside the operation). The gate, track and resume suites.
rc::Gen<Drive> drive_generator_with_inline();
std::string_view drive_name(Drive drive);

// Executor options for a case: its seed and drive, the sweep's strategy.
sim::Options simulation_options(std::uint64_t seed, Drive drive, const RunSettings& settings);

// A run and the oracle's first violation, as one outcome.
CaseOutcome outcome_of(const sim::RunResult& result, const std::string& violation, const sim::Executor& executor);

// Checked readers for stored cases: each throws std::invalid_argument with a one-line reason.
std::uint64_t require_u64(const nlohmann::json& json, const char* key);
std::string require_string(const nlohmann::json& json, const char* key);
const nlohmann::json& require_array(const nlohmann::json& json, const char* key);
std::uint8_t require_small(const nlohmann::json& value, unsigned max, const char* what);
Drive require_drive(const nlohmann::json& json);

}  // namespace moq::properties
