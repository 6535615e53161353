#include "runner/trace_file.hpp"

#include <algorithm>

#include "runner/args.hpp"
#include "runner/json_input.hpp"
#include "runner/output.hpp"
#include "sim/trace.hpp"

namespace moq::runner {

namespace {

// A trace's event: one object with the fields every event has.
void check_event(const nlohmann::json& event, const std::string& where) {
    if (!event.is_object()) throw UsageError(where + ": not a JSON object (a trace is one object a line)");
    for (const char* key : {"step", "time"})
        if (!event.contains(key) || !event[key].is_number_integer())
            throw UsageError(where + ": '" + key + "' must be a whole number");
    if (!event.contains("event") || !event["event"].is_string()) throw UsageError(where + ": 'event' must be a string");
}

}  // namespace

TraceFile parse_trace_file(std::string_view text, const std::string& label) {
    TraceFile trace;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        const std::string_view line = text.substr(start, end - start);
        const std::string where = label + " line " + std::to_string(trace.lines.size() + 1);
        if (line.empty()) throw UsageError(where + ": empty (a trace is one JSON object a line)");
        nlohmann::json event = parse_json_input(line, where);
        check_event(event, where);
        if (trace.events.empty()) {
            if (!event.contains("schema") || !event["schema"].is_number_integer())
                throw UsageError(where + ": no trace schema (the first line of a trace carries \"schema\")");
            if (event["schema"] != sim::trace_schema)
                throw UsageError(where + ": trace schema " + event["schema"].dump() + " (this moqsim reads schema " +
                                 std::to_string(sim::trace_schema) + ")");
        }
        trace.lines.emplace_back(line);
        trace.events.push_back(std::move(event));
        start = end + 1;
    }
    if (trace.events.empty()) throw UsageError(label + ": no events (an empty file is not a trace)");
    return trace;
}

TraceFile read_trace_file(const std::string& path) { return parse_trace_file(read_input_file(path), path); }

std::size_t first_difference(const TraceFile& first, const TraceFile& second) {
    const std::size_t common = std::min(first.events.size(), second.events.size());
    std::size_t index = 0;
    while (index < common && first.events[index] == second.events[index]) ++index;
    return index;
}

}  // namespace moq::runner
