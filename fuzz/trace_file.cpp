// A trace, as `moqsim trace-diff` reads it (cli/trace_file.hpp). A refusal (UsageError)
// is the answer to a bad file. A finding: any other exception, a crash, a sanitizer
// report, a hang; an accepted trace whose events are not each one object with a whole
// `step` and `time` and a string `event`, whose first event has not this moqsim's schema,
// that does not read back as the same events from their JSON written again, or that
// trace-diff would find different from itself.
#include <cstdint>
#include <string>

#include "runner/args.hpp"
#include "runner/trace_file.hpp"
#include "fuzz/support.hpp"
#include "sim/trace.hpp"

using moq::fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    moq::runner::TraceFile trace;
    try {
        trace = moq::runner::parse_trace_file(moq::fuzz::as_text(data, size), "input");
    } catch (const moq::runner::UsageError&) {
        return 0;
    }
    require(!trace.events.empty() && trace.events.size() == trace.lines.size(), "events and lines disagree");
    require(trace.events.front().at("schema") == moq::sim::trace_schema, "a trace of another schema was read");
    std::string written;
    for (const nlohmann::json& event : trace.events) {
        require(event.is_object() && event.at("step").is_number_integer() && event.at("time").is_number_integer() &&
                    event.at("event").is_string(),
                "an event without its step, time or kind was read");
        written += event.dump() + "\n";
    }
    const moq::runner::TraceFile again = moq::runner::parse_trace_file(written, "written");
    require(moq::runner::first_difference(trace, trace) == trace.events.size(), "a trace differs from itself");
    require(
        again.events.size() == trace.events.size() && moq::runner::first_difference(trace, again) == trace.events.size(),
        "the trace written again reads back as other events");
    return 0;
}
