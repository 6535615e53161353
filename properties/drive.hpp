// What every simulated suite shares: how a case drives the executor, how a run becomes
// an outcome, and the checked JSON readers for stored cases.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <rapidcheck.h>
#include <nlohmann/json.hpp>

#include "properties/suite.hpp"
#include "sim/executor.hpp"

namespace moq::properties {

// How the reader tasks of a case are polled (see docs/TESTING.md).
// `inlined`: a wake polls the parked task at once (as runtimes that run a woken task on
// the waking thread do), and the core's wake points may switch tasks.
enum class Drive : std::uint8_t { woken, spurious, fresh, eager, inlined };

// Every mode. Under `inline` a wake may run the reader inside a driver's operation, so a
// suite's driver tells its model of an operation before making it and knows when its
// wakes are still under way.
rc::Gen<Drive> drive_generator();
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
