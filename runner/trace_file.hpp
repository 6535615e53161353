// A trace written by `moqsim replay --trace FILE` (JSON lines), read back: for
// `moqsim trace-diff`. Each line is read through parse_json_input (its nesting limit).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace moq::runner {

struct TraceFile {
    std::vector<std::string> lines;      // each event's line as written
    std::vector<nlohmann::json> events;  // the same, parsed
};

// `text` (the contents of `label`) as a trace of this moqsim's schema
// (sim::trace_schema). UsageError, naming `label` and the line, for an empty text, a
// line that is not one JSON object with a whole-number `step` and `time` and a string
// `event`, a first line without `"schema"`, or a schema this moqsim does not write.
TraceFile parse_trace_file(std::string_view text, const std::string& label);

// The file at `path` (read_input_file: its size limit) parsed as above.
TraceFile read_trace_file(const std::string& path);

// The index of the first event where two traces part (the events compared as JSON
// values); the shorter trace's length when one is the start of the other, and so the
// length of both when they are the same.
std::size_t first_difference(const TraceFile& first, const TraceFile& second);

}  // namespace moq::runner
