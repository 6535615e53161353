// The timeline page of a run (`moqsim replay ... --timeline FILE.html`): one
// self-contained HTML page (inline SVG, CSS and script, nothing loaded from anywhere)
// drawn from the run's trace as JSON lines (sim::trace_json_lines): a lane per task,
// each event a mark in its own column in trace order, wakes as arrows from the waking
// task's lane to the woken one's, preemption points labelled, the failing event
// highlighted with the model's message, every event's fields as its hover text.
// docs/TESTING.md describes the page.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace moq::runner {

// What the page says above the picture: its title and facts (name, value) about the run.
struct TimelineHeading {
    std::string title;
    std::vector<std::pair<std::string, std::string>> facts;
};

// The most events one page draws. A longer trace is drawn as the window of this many
// events that holds its failure (or its beginning), and the page says which.
inline constexpr std::size_t timeline_max_events = 20000;

// A trace line the page cannot draw (not a JSON object with step, time and event).
class TimelineInputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The page for the trace `json_lines` (one event a line). Every text taken from the trace
// or the heading is escaped. Throws TimelineInputError for a line that is no event.
std::string render_timeline(std::string_view json_lines, const TimelineHeading& heading,
                            std::size_t max_events = timeline_max_events);

// `text` safe inside XML/HTML text and quoted attributes: & < > " ' as references,
// control characters (but tab and newline) as their pictures (U+2401 for 0x01).
std::string markup_escape(std::string_view text);

}  // namespace moq::runner
