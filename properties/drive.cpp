#include "properties/drive.hpp"

#include <stdexcept>

namespace moq::properties {

rc::Gen<Drive> drive_generator() {
    return rc::gen::weightedElement<Drive>(
        {{4, Drive::woken}, {2, Drive::spurious}, {2, Drive::fresh}, {1, Drive::eager}, {2, Drive::inlined}});
}

std::string_view drive_name(Drive drive) {
    switch (drive) {
        case Drive::woken: return "woken";
        case Drive::spurious: return "spurious";
        case Drive::fresh: return "fresh";
        case Drive::eager: return "eager";
        case Drive::inlined: return "inline";
    }
    return "woken";
}

sim::Options simulation_options(std::uint64_t seed, Drive drive, const RunSettings& settings) {
    sim::Options options;
    options.seed = seed;
    options.strategy.kind = settings.strategy;
    options.strategy.pct_depth = 3;
    options.strategy.task_events = settings.task_events;
    options.keep_trace = settings.keep_trace;
    options.record_decisions = settings.record_decisions;
    options.decider = settings.decider;
    options.parked_at_quiescence_is_quiet = true;
    options.max_steps = 50000;
    options.stack_size = std::size_t{128} * 1024;
    switch (drive) {
        case Drive::woken: break;
        case Drive::spurious: options.spurious_polls = true; break;
        case Drive::fresh: options.fresh_task_polls = true; break;
        case Drive::eager: options.eager = true; break;
        case Drive::inlined:
            options.inline_wakes = true;
            options.wake_points = true;
            break;
    }
    return options;
}

void trace_operation(sim::Task& task, const char* name, std::initializer_list<std::int64_t> arguments) {
    task.executor().record(sim::operation_event(name, arguments));
}

void trace_pending(sim::Executor& executor, const char* read) {
    executor.record(sim::answer_event(read, sim::AnswerKind::pending));
}

void trace_ending(sim::Executor& executor, const char* read, std::optional<model::Error> error) {
    sim::Event event = sim::answer_event(read, error ? sim::AnswerKind::error : sim::AnswerKind::end);
    if (error) event.label = model::error_name(*error).data();
    executor.record(event);
}

void trace_item(sim::Executor& executor, const char* read, std::optional<std::uint64_t> sequence,
                std::optional<std::uint64_t> source, std::optional<std::string_view> bytes) {
    sim::Event event = sim::answer_event(read, sim::AnswerKind::item);
    if (sequence) event.with(sim::answer_sequence, static_cast<std::int64_t>(*sequence));
    if (source) event.with(sim::answer_source, static_cast<std::int64_t>(*source));
    if (bytes) event.with(sim::answer_content, sim::Trace::content_hash(*bytes));
    executor.record(event, {}, bytes && executor.keeps_trace() ? std::string(*bytes) : std::string());
}

void trace_gate(sim::Executor& executor, bool idle, std::uint64_t walks) {
    executor.record(
        sim::Event{.kind = sim::EventKind::gate,
                   .code = static_cast<std::uint8_t>(idle ? sim::GateAnswer::idle : sim::GateAnswer::walked)}
            .with(0, static_cast<std::int64_t>(walks)));
}

void trace_verdict(sim::Executor& executor, const std::optional<std::string>& found) {
    const sim::Verdict verdict = found ? sim::Verdict::violated : sim::Verdict::ok;
    executor.record(sim::Event{.kind = sim::EventKind::verdict, .code = static_cast<std::uint8_t>(verdict)},
                    found ? std::string_view(*found) : std::string_view());
}

CaseOutcome outcome_of(const sim::RunResult& result, const std::string& violation, sim::Executor& executor) {
    CaseOutcome outcome;
    // The verdicts given after the run (efficiency, budgets) count too.
    outcome.digest = executor.trace().digest();
    outcome.answers_digest = executor.trace().answers_digest();
    outcome.steps = result.steps;
    if (!result.ok()) {
        outcome.ok = false;
        outcome.message = std::string(sim::outcome_name(result.outcome)) + ": " + result.message;
    } else if (!violation.empty()) {
        outcome.ok = false;
        outcome.message = violation;
    }
    if (executor.keeps_trace()) outcome.trace = executor.trace().take_entries();
    outcome.decisions = result.decisions;
    outcome.costly_choices = result.costly_choices;
    for (std::uint32_t task = 0; task < executor.task_count(); ++task)
        outcome.task_events.push_back(executor.task_stats(task).events);
    return outcome;
}

std::uint64_t require_u64(const nlohmann::json& json, const char* key) {
    if (!json.contains(key) || !json[key].is_number_unsigned())
        throw std::invalid_argument(std::string("'") + key + "' must be a whole number");
    return json[key].get<std::uint64_t>();
}

std::string require_string(const nlohmann::json& json, const char* key) {
    if (!json.contains(key) || !json[key].is_string())
        throw std::invalid_argument(std::string("'") + key + "' must be a string");
    return json[key].get<std::string>();
}

const nlohmann::json& require_array(const nlohmann::json& json, const char* key) {
    if (!json.contains(key) || !json[key].is_array())
        throw std::invalid_argument(std::string("'") + key + "' must be an array");
    return json[key];
}

std::uint8_t require_small(const nlohmann::json& value, unsigned max, const char* what) {
    if (!value.is_number_unsigned() || value.get<std::uint64_t>() > max)
        throw std::invalid_argument(std::string(what) + " must be a whole number up to " + std::to_string(max));
    return static_cast<std::uint8_t>(value.get<std::uint64_t>());
}

Drive require_drive(const nlohmann::json& json) {
    const std::string name = require_string(json, "drive");
    for (Drive drive : {Drive::woken, Drive::spurious, Drive::fresh, Drive::eager, Drive::inlined})
        if (drive_name(drive) == name) return drive;
    throw std::invalid_argument("unknown drive '" + name + "'");
}

}  // namespace moq::properties
