// What every simulated suite shares: how a case drives the executor, how a run becomes
// an outcome, and the checked JSON readers for stored cases.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include <rapidcheck.h>
#include <nlohmann/json.hpp>

#include "model/error.hpp"
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
CaseOutcome outcome_of(const sim::RunResult& result, const std::string& violation, sim::Executor& executor);

// What a suite tells the trace, besides the executor's schedule (docs/TESTING.md lists
// the events). The driver's operation with its arguments; `label` (the operation as the
// case's description writes it) is called only when the trace is kept.
template <class Label>
void trace_operation(sim::Task& task, const char* name, std::initializer_list<std::int64_t> arguments, Label&& label) {
    sim::Executor& executor = task.executor();
    executor.record(sim::operation_event(name, arguments), {},
                    executor.keeps_trace() ? std::string(std::forward<Label>(label)()) : std::string());
}
void trace_operation(sim::Task& task, const char* name, std::initializer_list<std::int64_t> arguments);
// A reader's answer to the read `read`: Pending, an end, or an error (its name).
void trace_pending(sim::Executor& executor, const char* read);
void trace_ending(sim::Executor& executor, const char* read, std::optional<model::Error> error);
// An item: its sequence (or index), the copy the reader says it came from, and the bytes
// read (hashed; kept as they are with a kept trace), each where the read has one.
void trace_item(sim::Executor& executor, const char* read, std::optional<std::uint64_t> sequence,
                std::optional<std::uint64_t> source = std::nullopt,
                std::optional<std::string_view> bytes = std::nullopt);
// How the reader's gate answered this poll: without walking (idle) or by walking.
void trace_gate(sim::Executor& executor, bool idle, std::uint64_t walks);
// The model's verdict on what it was just told: nothing wrong, or the violation (its rule
// first, then what the model expected).
void trace_verdict(sim::Executor& executor, const std::optional<std::string>& found);

// Checked readers for stored cases: each throws std::invalid_argument with a one-line reason.
std::uint64_t require_u64(const nlohmann::json& json, const char* key);
std::string require_string(const nlohmann::json& json, const char* key);
const nlohmann::json& require_array(const nlohmann::json& json, const char* key);
std::uint8_t require_small(const nlohmann::json& value, unsigned max, const char* what);
Drive require_drive(const nlohmann::json& json);

}  // namespace moq::properties
