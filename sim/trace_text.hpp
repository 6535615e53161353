// A kept trace as a log a person reads in a terminal: one line an event, in columns
// (virtual time, step, task, event, details), the same events and fields as the JSON
// lines (trace.hpp), each code by its name (event_code_name).
#pragma once

#include <string>
#include <vector>

#include "sim/trace.hpp"

namespace moq::sim {

// Every event as one line; the columns are as wide as their widest entry, so they line
// up. The first line is a header naming the columns and the trace schema.
std::string trace_text_lines(const std::vector<TraceEntry>& entries);

// One event's details, as the last column writes them (`land(A,2)`, `group item
// sequence 2 source 1`, `violated R7: ...`).
std::string trace_text_details(const TraceEntry& entry);

// Virtual time in seconds with every nanosecond: 1.200000000.
std::string trace_text_time(std::int64_t nanoseconds);

}  // namespace moq::sim
