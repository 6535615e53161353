#include "runner/timeline.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "runner/timeline_assets.hpp"

namespace moq::runner {
namespace {

// The fields of a line in the order the trace writes them, for the hover text.
using Json = nlohmann::ordered_json;

// Geometry, in CSS pixels. Every event has a column of its own, in trace order; a row is
// the run's (events of no task) or a task's lane. Labels rise diagonally above the marks,
// so parallel labels of neighbouring columns do not cross.
constexpr double column_width = 22;
constexpr double names_width = 180;
constexpr double axis_height = 44;
constexpr double row_height = 128;
constexpr double mark_offset = 104;  // from a row's top to its marks
constexpr double label_room = 160;   // right of the last column, for its rising label
constexpr double chart_margin = 16;
constexpr std::size_t label_chars = 22;
constexpr std::size_t name_chars = 22;

struct TraceEvent {
    std::size_t index = 0;  // in the trace, from 0
    Json fields;
    std::string kind;
    std::int64_t step = 0;
    std::int64_t time = 0;
    std::optional<std::uint64_t> task;
};

std::string text_field(const Json& fields, const char* key) {
    const auto found = fields.find(key);
    return found != fields.end() && found->is_string() ? found->get<std::string>() : std::string();
}

std::optional<std::int64_t> number_field(const Json& fields, const char* key) {
    const auto found = fields.find(key);
    if (found == fields.end() || !found->is_number_integer()) return std::nullopt;
    return found->get<std::int64_t>();
}

std::vector<TraceEvent> parse_events(std::string_view json_lines) {
    std::vector<TraceEvent> events;
    std::size_t line_number = 0;
    while (!json_lines.empty()) {
        const std::size_t end = std::min(json_lines.find('\n'), json_lines.size());
        const std::string_view line = json_lines.substr(0, end);
        json_lines.remove_prefix(std::min(end + 1, json_lines.size()));
        ++line_number;
        if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
        const std::string where = "trace line " + std::to_string(line_number) + ": ";
        TraceEvent event;
        event.fields = Json::parse(line, nullptr, false);
        if (event.fields.is_discarded() || !event.fields.is_object())
            throw TimelineInputError(where + "not a JSON object");
        const auto step = number_field(event.fields, "step");
        const auto time = number_field(event.fields, "time");
        event.kind = text_field(event.fields, "event");
        if (!step || !time || event.kind.empty())
            throw TimelineInputError(where + "an event needs a whole step, a whole time and an event kind");
        event.step = *step;
        event.time = *time;
        if (const auto task = number_field(event.fields, "task_id"); task && *task >= 0)
            event.task = static_cast<std::uint64_t>(*task);
        event.index = events.size();
        events.push_back(std::move(event));
    }
    return events;
}

std::string shortened(const std::string& text, std::size_t most) {
    if (text.size() <= most) return text;
    std::size_t cut = most - 1;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // whole UTF-8 characters
    return text.substr(0, cut) + "\u2026";
}

std::string number_text(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", value);
    std::string result = text;
    if (result.size() > 2 && result.compare(result.size() - 2, 2, ".0") == 0) result.resize(result.size() - 2);
    return result;
}

// Virtual time for a reader: "0", "750 ns", "1.5 ms".
std::string time_text(std::int64_t nanoseconds) {
    if (nanoseconds == 0) return "0";
    const double value = static_cast<double>(nanoseconds);
    const double magnitude = value < 0 ? -value : value;
    char text[32];
    if (magnitude < 1e3) return std::to_string(nanoseconds) + " ns";
    if (magnitude < 1e6)
        std::snprintf(text, sizeof text, "%.4g \u00b5s", value / 1e3);
    else if (magnitude < 1e9)
        std::snprintf(text, sizeof text, "%.4g ms", value / 1e6);
    else
        std::snprintf(text, sizeof text, "%.4g s", value / 1e9);
    return text;
}

std::string value_text(const Json& value) { return value.is_string() ? value.get<std::string>() : value.dump(); }

// The hover text of an event: its position and every field of its line.
std::string hover_text(const TraceEvent& event) {
    std::string text = "event #" + std::to_string(event.index + 1);
    for (const auto& [key, value] : event.fields.items()) {
        text += '\n';
        text += key;
        text += ": ";
        text += value_text(value);
        if (key == "time" && event.time != 0) text += " (" + time_text(event.time) + ")";
    }
    return text;
}

// How a mark looks: the CSS class of its shape and colour.
std::string mark_style(const TraceEvent& event) {
    const std::string& kind = event.kind;
    if (kind == "answer") return "answer-" + text_field(event.fields, "answer");
    if (kind == "gate") return "gate-" + text_field(event.fields, "answer");
    if (kind == "verdict") return "verdict-" + text_field(event.fields, "verdict");
    if (kind == "poll") return "poll-" + text_field(event.fields, "result");
    if (kind == "end") return text_field(event.fields, "message").empty() ? "end" : "end-failed";
    return kind;
}

// The short label a mark carries, if any.
std::string mark_label(const TraceEvent& event) {
    const Json& fields = event.fields;
    const std::string& kind = event.kind;
    if (kind == "operation") {
        std::string detail = text_field(fields, "detail");
        if (!detail.empty()) return detail;
        std::string text = text_field(fields, "op");
        if (const auto args = fields.find("args"); args != fields.end()) text += args->dump();
        return text;
    }
    if (kind == "answer") {
        std::string answer = text_field(fields, "answer");
        if (answer == "item") {
            std::string text = text_field(fields, "read");
            if (const auto sequence = number_field(fields, "sequence")) text += " " + std::to_string(*sequence);
            if (const auto source = number_field(fields, "source")) text += " @" + std::to_string(*source);
            return text;
        }
        if (answer == "error") return "error " + text_field(fields, "error");
        return answer;
    }
    if (kind == "preempt") return text_field(fields, "at");
    if (kind == "verdict" && text_field(fields, "verdict") == "violated") {
        const std::string rule = text_field(fields, "rule");
        return rule.empty() ? "violated" : rule + " violated";
    }
    if (kind == "note") return text_field(fields, "note");
    if (kind == "time") return "t = " + time_text(number_field(fields, "to").value_or(event.time));
    if (kind == "end") return text_field(fields, "outcome");
    if (kind == "seed") return "seed " + value_text(fields.value("seed", Json()));
    if (kind == "spawn") return "spawn";
    return {};
}

// The SVG of one mark centred at (x, y), its class `mark m-STYLE`.
std::string shape_svg(const std::string& style, double x, double y) {
    const std::string css = "class=\"mark m-" + markup_escape(style) + "\"";
    const auto at = [](double a, double b) { return number_text(a) + "," + number_text(b); };
    const auto polygon = [&](std::initializer_list<std::pair<double, double>> points) {
        std::string text = "<polygon " + css + " points=\"";
        for (const auto& [dx, dy] : points) text += at(x + dx, y + dy) + " ";
        text.back() = '"';
        return text + "/>";
    };
    const auto circle = [&](double radius) {
        return "<circle " + css + " cx=\"" + number_text(x) + "\" cy=\"" + number_text(y) + "\" r=\"" +
               number_text(radius) + "\"/>";
    };
    const auto path = [&](const std::string& d) { return "<path " + css + " d=\"" + d + "\"/>"; };
    if (style == "operation")
        return "<rect " + css + " x=\"" + number_text(x - 5.5) + "\" y=\"" + number_text(y - 5.5) +
               "\" width=\"11\" height=\"11\"/>";
    if (style.starts_with("answer-")) return polygon({{0, -7}, {7, 0}, {0, 7}, {-7, 0}});
    if (style.starts_with("gate-")) return polygon({{0, -6}, {6, 5}, {-6, 5}});
    if (style == "preempt") return polygon({{-6, -5}, {6, -5}, {0, 7}});
    if (style == "verdict-ok")
        return path("M" + at(x - 5, y) + " L" + at(x - 1.5, y + 4.5) + " L" + at(x + 5.5, y - 5.5));
    if (style == "verdict-violated" || style == "failure")
        return circle(9) + "<text class=\"bang\" x=\"" + number_text(x) + "\" y=\"" + number_text(y + 4.5) +
               "\">!</text>";
    if (style.starts_with("poll-")) return circle(4);
    if (style == "run")
        return "<rect " + css + " x=\"" + number_text(x - 1.5) + "\" y=\"" + number_text(y - 9) +
               "\" width=\"3\" height=\"18\"/>";
    if (style == "spawn") return circle(6);
    if (style == "time")
        return circle(6.5) + "<path class=\"mark m-time-hands\" d=\"M" + at(x, y - 4) + " L" + at(x, y) + " L" +
               at(x + 3, y + 2) + "\"/>";
    if (style == "end" || style == "end-failed")
        return path("M" + at(x - 4, y + 8) + " L" + at(x - 4, y - 8) + " L" + at(x + 6, y - 4) + " L" + at(x - 4, y) +
                    " Z");
    if (style == "spurious" || style == "stale_wake")
        return path("M" + at(x - 4, y - 4) + " L" + at(x + 4, y + 4) + " M" + at(x - 4, y + 4) + " L" +
                    at(x + 4, y - 4));
    if (style == "eager")
        return path("M" + at(x - 5, y) + " L" + at(x + 5, y) + " M" + at(x, y - 5) + " L" + at(x, y + 5));
    if (style == "fresh_task")
        return "<rect " + css + " x=\"" + number_text(x - 4) + "\" y=\"" + number_text(y - 4) +
               "\" width=\"8\" height=\"8\"/>";
    return circle(4);  // seed, note, and any kind a later schema adds
}

// How each wake's arrow looks, by its effect (a stale wake's too): its line and its head.
struct WakeLook {
    std::string_view effect;
    std::string_view colour;
    std::string_view dashes;  // empty: a solid line
};
constexpr WakeLook wake_looks[] = {
    {"queued", "#1f6fd1", ""},         {"inline", "#7b3294", ""},   {"deduplicated", "#999", "4 3"},
    {"during_poll", "#4aa3df", "1 3"}, {"finished", "#bbb", "1 3"}, {"stale", "#d7191c", "4 3"},
};

std::string wake_style_sheet() {
    std::string css;
    for (const WakeLook& look : wake_looks) {
        css += ".w-" + std::string(look.effect) + "{stroke:" + std::string(look.colour);
        if (!look.dashes.empty()) css += ";stroke-dasharray:" + std::string(look.dashes);
        css += "}.h-" + std::string(look.effect) + "{fill:" + std::string(look.colour) + "}\n";
    }
    return css;
}

std::string wake_effect(const TraceEvent& event) {
    if (event.kind == "stale_wake") return "stale";
    std::string effect = text_field(event.fields, "effect");
    for (const WakeLook& look : wake_looks)
        if (look.effect == effect) return effect;
    return "queued";
}

// An arrow from (x, from_y) to (x, to_y); a wake of a task by itself loops above its lane.
std::string arrow_path(double x, double from_y, double to_y, const std::string& effect) {
    std::string d;
    if (from_y == to_y) {
        d = "M" + number_text(x - 6) + "," + number_text(from_y - 5) + " C" + number_text(x - 8) + "," +
            number_text(from_y - 30) + " " + number_text(x + 8) + "," + number_text(from_y - 30) + " " +
            number_text(x + 5) + "," + number_text(from_y - 9);
    } else {
        const double direction = to_y > from_y ? 1 : -1;
        d = "M" + number_text(x) + "," + number_text(from_y + 5 * direction) + " L" + number_text(x) + "," +
            number_text(to_y - 9 * direction);
    }
    return "<path class=\"wake-arrow w-" + effect + "\" d=\"" + d + "\" marker-end=\"url(#head-" + effect + ")\"/>";
}

struct Lane {
    std::uint64_t task = 0;
    std::string name;
};

// The failing event: the first violated verdict, else an end with a failure's message or
// outcome.
std::optional<std::size_t> failing_event(const std::vector<TraceEvent>& events) {
    for (const TraceEvent& event : events)
        if (event.kind == "verdict" && text_field(event.fields, "verdict") == "violated") return event.index;
    for (const TraceEvent& event : events) {
        if (event.kind != "end") continue;
        const std::string outcome = text_field(event.fields, "outcome");
        if (!text_field(event.fields, "message").empty() || (outcome != "finished" && outcome != "quiet"))
            return event.index;
    }
    return std::nullopt;
}

class Page {
public:
    Page(std::vector<TraceEvent> events, std::size_t max_events) : events_(std::move(events)) {
        for (const TraceEvent& event : events_) {
            if (!event.task || lane_of_.contains(*event.task)) continue;
            lane_of_[*event.task] = lanes_.size() + 1;
            lanes_.push_back(Lane{*event.task, text_field(event.fields, "task")});
        }
        for (const TraceEvent& event : events_)
            if (event.task && lanes_[lane_of_[*event.task] - 1].name.empty())
                lanes_[lane_of_[*event.task] - 1].name = text_field(event.fields, "task");
        for (Lane& lane : lanes_)
            if (lane.name.empty()) lane.name = "task " + std::to_string(lane.task);
        failure_ = failing_event(events_);
        first_ = 0;
        last_ = events_.size();
        if (max_events > 0 && events_.size() > max_events) {
            // The window that holds the failure, with a tenth of the window after it.
            const std::size_t wanted_end =
                failure_ ? std::min(events_.size(), *failure_ + 1 + max_events / 10) : max_events;
            last_ = std::max(wanted_end, max_events);
            first_ = last_ - max_events;
        }
        width_ = chart_margin * 2 + static_cast<double>(last_ - first_) * column_width + label_room;
        height_ = axis_height + static_cast<double>(lanes_.size() + 1) * row_height;
    }

    std::string render(const TimelineHeading& heading) const {
        std::string html;
        html += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>";
        html += markup_escape(heading.title);
        html += "</title>\n<style>\n";
        html += timeline_assets::style_sheet;
        html += wake_style_sheet();
        html += "</style>\n</head>\n<body>\n<header>\n<h1>" + markup_escape(heading.title) + "</h1>\n<dl>";
        for (const auto& [name, value] : heading.facts)
            html += "<dt>" + markup_escape(name) + "</dt><dd>" + markup_escape(value) + "</dd>";
        html += "</dl>\n</header>\n";
        html += failure_section();
        html += window_note();
        html += "<div class=\"timeline\">\n" + names_svg() + "<div class=\"scroller\">\n" + chart_svg() +
                "</div>\n</div>\n";
        html += legend();
        html += "<script>\n";
        html += timeline_assets::script;
        html += "</script>\n</body>\n</html>\n";
        return html;
    }

private:
    [[nodiscard]] double column_x(std::size_t index) const {
        return chart_margin + (static_cast<double>(index - first_) + 0.5) * column_width;
    }
    static double row_top(std::size_t row) { return axis_height + static_cast<double>(row) * row_height; }
    static double mark_y(std::size_t row) { return row_top(row) + mark_offset; }
    [[nodiscard]] std::size_t row_of(const TraceEvent& event) const {
        return event.task ? lane_of_.at(*event.task) : 0;
    }
    [[nodiscard]] std::size_t row_of_task(std::optional<std::int64_t> task) const {
        if (!task || *task < 0) return 0;
        const auto found = lane_of_.find(static_cast<std::uint64_t>(*task));
        return found == lane_of_.end() ? 0 : found->second;
    }
    [[nodiscard]] bool drawn(std::size_t index) const { return index >= first_ && index < last_; }

    [[nodiscard]] std::string failure_section() const {
        if (!failure_) {
            std::string outcome = "; it has no end event";
            for (const TraceEvent& event : events_)
                if (event.kind == "end") outcome = ": the run ended " + text_field(event.fields, "outcome");
            return "<section class=\"passed\" id=\"outcome\">No failure in this trace" + markup_escape(outcome) +
                   ".</section>\n";
        }
        const TraceEvent& event = events_[*failure_];
        std::string where = "event #" + std::to_string(event.index + 1) + " (" + event.kind;
        if (const std::string check = text_field(event.fields, "check"); !check.empty()) where += ", check " + check;
        if (const std::string outcome = text_field(event.fields, "outcome"); !outcome.empty()) where += ", " + outcome;
        where += "), step " + std::to_string(event.step) + ", time " + time_text(event.time);
        if (event.task) where += ", task " + lanes_[lane_of_.at(*event.task) - 1].name;
        const std::string rule = text_field(event.fields, "rule");
        std::string message = text_field(event.fields, "message");
        if (message.empty()) message = "(the trace gives no message)";
        std::string html = "<section class=\"failure\" id=\"failure-message\">\n<p><strong>Failed</strong> at " +
                           markup_escape(where) + ".";
        if (drawn(event.index)) html += "<button id=\"show-failure\" type=\"button\">Show it</button>";
        html += "</p>\n<p>";
        if (!rule.empty())
            html += "Rule broken: <span class=\"rule\">" + markup_escape(rule) + "</span> (docs/SPEC.md). ";
        html += "The model says: <span class=\"message\">" + markup_escape(message) + "</span></p>\n</section>\n";
        return html;
    }

    [[nodiscard]] std::string window_note() const {
        if (first_ == 0 && last_ == events_.size()) return {};
        return "<p class=\"note\" id=\"window-note\">This trace has " + std::to_string(events_.size()) +
               " events; the page draws at most " + std::to_string(last_ - first_) + ", so it shows events #" +
               std::to_string(first_ + 1) + " to #" + std::to_string(last_) +
               (failure_ ? " (the window that holds the failure)" : "") +
               ". The trace's JSON lines (--trace) hold them all.</p>\n";
    }

    [[nodiscard]] std::string names_svg() const {
        std::string svg = "<svg class=\"names\" width=\"" + number_text(names_width) + "\" height=\"" +
                          number_text(height_) + "\" role=\"img\" aria-label=\"tasks\">\n";
        svg +=
            "<text class=\"axis-name\" x=\"8\" y=\"16\">step</text><text class=\"axis-name\" x=\"8\" "
            "y=\"34\">virtual time</text>\n";
        const auto name_row = [&](std::size_t row, const std::string& name, const std::string& detail,
                                  const std::string& hover) {
            const double top = row_top(row);
            svg += "<g class=\"lane-label\"><title>" + markup_escape(hover) +
                   "</title><rect class=\"lane-bg\" x=\"0\" y=\"" + number_text(top) + "\" width=\"" +
                   number_text(names_width) + "\" height=\"" + number_text(row_height) +
                   "\" fill-opacity=\"0\"/><text class=\"lane-name\" x=\"8\" y=\"" + number_text(mark_y(row) - 4) +
                   "\">" + markup_escape(shortened(name, name_chars)) + "</text><text class=\"lane-id\" x=\"8\" y=\"" +
                   number_text(mark_y(row) + 12) + "\">" + markup_escape(detail) + "</text></g>\n";
        };
        name_row(0, "run", "no task: clock, checks, end", "events of no task: the seed, clock moves, checks, the end");
        for (std::size_t lane = 0; lane < lanes_.size(); ++lane)
            name_row(lane + 1, lanes_[lane].name, "task " + std::to_string(lanes_[lane].task),
                     "task " + lanes_[lane].name + " (task_id " + std::to_string(lanes_[lane].task) + ")");
        svg += "</svg>\n";
        return svg;
    }

    [[nodiscard]] std::string chart_svg() const {
        std::string svg = "<svg class=\"chart\" width=\"" + number_text(width_) + "\" height=\"" +
                          number_text(height_) + "\" data-first=\"" + std::to_string(first_) + "\" data-last=\"" +
                          std::to_string(last_) + "\" role=\"img\" aria-label=\"timeline\">\n";
        svg += "<defs>";
        for (const WakeLook& look : wake_looks)
            svg += "<marker id=\"head-" + std::string(look.effect) +
                   "\" viewBox=\"0 0 10 10\" refX=\"8\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" "
                   "orient=\"auto-start-reverse\"><path class=\"h-" +
                   std::string(look.effect) + "\" d=\"M0,0 L10,5 L0,10 Z\"/></marker>";
        svg += "</defs>\n";
        svg += rows_svg();
        svg += steps_svg();
        svg += running_svg();
        svg += failure_band_svg();
        svg += wakes_svg();
        svg += events_svg();
        svg += "</svg>\n";
        return svg;
    }

    [[nodiscard]] std::string rows_svg() const {
        std::string svg = "<g class=\"rows\">\n";
        const auto row_svg = [&](std::size_t row, const std::string& attributes) {
            svg += "<g " + attributes + "><rect class=\"lane-bg\" x=\"0\" y=\"" + number_text(row_top(row)) +
                   "\" width=\"" + number_text(width_) + "\" height=\"" + number_text(row_height) +
                   "\"/><line class=\"lane-line\" x1=\"0\" x2=\"" + number_text(width_) + "\" y1=\"" +
                   number_text(mark_y(row)) + "\" y2=\"" + number_text(mark_y(row)) + "\"/></g>\n";
        };
        row_svg(0, "class=\"run-row\"");
        for (std::size_t lane = 0; lane < lanes_.size(); ++lane)
            row_svg(lane + 1, "class=\"lane\" data-task-id=\"" + std::to_string(lanes_[lane].task) + "\" data-task=\"" +
                                  markup_escape(lanes_[lane].name) + "\"");
        return svg + "</g>\n";
    }

    // Alternate shading for each step's columns, and the axis: steps and virtual time.
    [[nodiscard]] std::string steps_svg() const {
        std::string bands = "<g class=\"steps\">\n";
        std::string axis = "<g class=\"axis\">\n";
        double last_step_label = -1e9;
        double last_time_label = -1e9;
        bool shaded = false;
        for (std::size_t index = first_; index < last_;) {
            std::size_t end = index;
            while (end < last_ && events_[end].step == events_[index].step) ++end;
            const double left = column_x(index) - column_width / 2;
            if (shaded)
                bands += "<rect class=\"step-band\" x=\"" + number_text(left) + "\" y=\"" + number_text(axis_height) +
                         "\" width=\"" + number_text(static_cast<double>(end - index) * column_width) + "\" height=\"" +
                         number_text(height_ - axis_height) + "\"/>\n";
            shaded = !shaded;
            // A label where the previous one leaves room (about 7 px a digit).
            const std::string step = std::to_string(events_[index].step);
            if (left >= last_step_label) {
                axis += "<text x=\"" + number_text(left + 2) + "\" y=\"16\">" + step + "</text>";
                last_step_label = left + 7 * static_cast<double>(step.size()) + 6;
            }
            index = end;
        }
        for (std::size_t index = first_; index < last_; ++index) {
            if (index != first_ && events_[index].time == events_[index - 1].time) continue;
            const double left = column_x(index) - column_width / 2;
            axis += "<line class=\"time-rule\" x1=\"" + number_text(left) + "\" x2=\"" + number_text(left) +
                    "\" y1=\"22\" y2=\"" + number_text(height_) + "\"/>";
            if (left - last_time_label >= 70) {
                axis += "<text class=\"time-label\" x=\"" + number_text(left + 2) + "\" y=\"34\">" +
                        markup_escape(time_text(events_[index].time)) + "</text>";
                last_time_label = left;
            }
        }
        return bands + "</g>\n" + axis + "\n</g>\n";
    }

    // A bar under a task's lane from each `run` (the strategy picked it) to the next pick.
    [[nodiscard]] std::string running_svg() const {
        std::string svg = "<g class=\"running-bars\">\n";
        for (std::size_t index = 0; index < events_.size(); ++index) {
            const TraceEvent& event = events_[index];
            if (event.kind != "run" || !event.task) continue;
            std::size_t end = index + 1;
            while (end < events_.size() && events_[end].kind != "run") ++end;
            const std::size_t from = std::max(index, first_);
            const std::size_t to = std::min(end, last_);
            if (from >= to) continue;
            const std::size_t row = row_of(event);
            svg += "<rect class=\"running\" x=\"" + number_text(column_x(from) - column_width / 2) + "\" y=\"" +
                   number_text(row_top(row) + row_height - 11) + "\" width=\"" +
                   number_text(static_cast<double>(to - from) * column_width) + "\" height=\"6\"/>\n";
        }
        return svg + "</g>\n";
    }

    [[nodiscard]] std::string failure_band_svg() const {
        if (!failure_ || !drawn(*failure_)) return {};
        const TraceEvent& failing = events_[*failure_];
        std::size_t from = failing.index;
        std::size_t to = failing.index + 1;
        while (from > first_ && events_[from - 1].step == failing.step) --from;
        while (to < last_ && events_[to].step == failing.step) ++to;
        const double x = column_x(failing.index);
        return "<rect class=\"failure-step\" x=\"" + number_text(column_x(from) - column_width / 2) + "\" y=\"" +
               number_text(axis_height) + "\" width=\"" + number_text(static_cast<double>(to - from) * column_width) +
               "\" height=\"" + number_text(height_ - axis_height) + "\"/>\n<rect class=\"failure-band\" x=\"" +
               number_text(x - column_width / 2) + "\" y=\"" + number_text(axis_height) + "\" width=\"" +
               number_text(column_width) + "\" height=\"" + number_text(height_ - axis_height) + "\"/>\n";
    }

    [[nodiscard]] static std::string event_open(const TraceEvent& event, const std::string& extra_class) {
        return "<g class=\"event ev-" + markup_escape(event.kind) + extra_class + "\" data-index=\"" +
               std::to_string(event.index) + "\"><title>" + markup_escape(hover_text(event)) + "</title>";
    }

    [[nodiscard]] std::string wakes_svg() const {
        std::string svg = "<g class=\"wakes\">\n";
        for (std::size_t index = first_; index < last_; ++index) {
            const TraceEvent& event = events_[index];
            if (event.kind != "wake" && event.kind != "stale_wake") continue;
            const double x = column_x(index);
            const std::size_t woken = row_of(event);
            const std::size_t waking = row_of_task(number_field(event.fields, "by_id"));
            const std::string effect = wake_effect(event);
            svg += event_open(event, "") + arrow_path(x, mark_y(waking), mark_y(woken), effect);
            if (event.kind == "stale_wake") svg += shape_svg("stale_wake", x, mark_y(woken));
            svg += "</g>\n";
        }
        return svg + "</g>\n";
    }

    [[nodiscard]] std::string events_svg() const {
        std::string svg = "<g class=\"events\">\n";
        for (std::size_t index = first_; index < last_; ++index) {
            const TraceEvent& event = events_[index];
            if (event.kind == "wake" || event.kind == "stale_wake") continue;
            const double x = column_x(index);
            const double y = mark_y(row_of(event));
            const bool failing = failure_ && *failure_ == index;
            std::string label = mark_label(event);
            if (failing) {
                svg += event_open(event, " failure") + "<g id=\"failure-mark\" class=\"failure-mark\" data-x=\"" +
                       number_text(x) + "\">" + shape_svg("failure", x, y) + "</g>";
            } else {
                svg += event_open(event, "") + shape_svg(mark_style(event), x, y);
            }
            if (!label.empty())
                svg += "<text class=\"label" + std::string(failing ? " failure-label" : "") +
                       "\" transform=\"translate(" + number_text(x + 3) + "," + number_text(y - (failing ? 12 : 9)) +
                       ") rotate(-50)\">" + markup_escape(shortened(label, label_chars)) + "</text>";
            svg += "</g>\n";
        }
        return svg + "</g>\n";
    }

    [[nodiscard]] static std::string legend() {
        struct Entry {
            const char* style;
            const char* meaning;
        };
        static constexpr Entry marks[] = {
            {"operation", "operation (the driver's, or a reader's own change)"},
            {"answer-item", "answer: item (read, sequence @ source copy)"},
            {"answer-pending", "answer: pending"},
            {"answer-end", "answer: end"},
            {"answer-error", "answer: error"},
            {"gate-walked", "idle gate walked"},
            {"gate-idle", "idle gate answered idle"},
            {"verdict-ok", "verdict ok"},
            {"verdict-violated", "verdict violated (the first one: the failure)"},
            {"preempt", "preempted at a schedule point (labelled)"},
            {"run", "picked by the strategy"},
            {"poll-pending", "poll: pending"},
            {"poll-ready", "poll: ready"},
            {"spawn", "task spawned"},
            {"time", "clock moves"},
            {"end", "run ends"},
            {"end-failed", "run ends failed"},
            {"spurious", "spurious poll"},
            {"eager", "eager poll"},
            {"fresh_task", "fresh task identity"},
            {"note", "note / seed"},
        };
        std::string html = "<section class=\"legend\" id=\"legend\">\n";
        for (const Entry& entry : marks)
            html += "<div><svg width=\"22\" height=\"22\">" + shape_svg(entry.style, 11, 11) + "</svg>" +
                    entry.meaning + "</div>\n";
        for (const WakeLook& look : wake_looks) {
            const std::string name(look.effect);
            html += "<div><svg width=\"30\" height=\"22\"><path class=\"legend-arrow w-";
            html += name;
            html += "\" d=\"M2,11 L24,11\" marker-end=\"url(#head-";
            html += name;
            html += ")\"/></svg>wake ";
            html += name == "stale" ? std::string("to a stale identity") : "(" + name + ")";
            html += "</div>\n";
        }
        html +=
            "<div><svg width=\"30\" height=\"22\"><rect class=\"running\" x=\"2\" y=\"8\" width=\"26\" "
            "height=\"6\"/></svg>running (from its pick to the next)</div>\n";
        html +=
            "<div><svg width=\"22\" height=\"22\"><rect class=\"failure-band\" x=\"4\" y=\"0\" width=\"14\" "
            "height=\"22\"/></svg>the failing event (its step lightly)</div>\n";
        html +=
            "<p class=\"help\">One column per event, in trace order; the axis gives each column's step and "
            "virtual time. Wakes are arrows from the waking task's lane (the run row: the clock or the "
            "scheduler) to the woken task's. Hover over a mark for all of its fields.</p>\n";
        return html + "</section>\n";
    }

    std::vector<TraceEvent> events_;
    std::vector<Lane> lanes_;
    std::map<std::uint64_t, std::size_t> lane_of_;  // task id -> row (0 is the run row)
    std::optional<std::size_t> failure_;
    std::size_t first_ = 0;  // the drawn window of events [first_, last_)
    std::size_t last_ = 0;
    double width_ = 0;
    double height_ = 0;
};

}  // namespace

std::string markup_escape(std::string_view text) {
    std::string escaped;
    escaped.reserve(text.size());
    for (const char c : text) {
        switch (c) {
            case '&': escaped += "&amp;"; break;
            case '<': escaped += "&lt;"; break;
            case '>': escaped += "&gt;"; break;
            case '"': escaped += "&quot;"; break;
            case '\'': escaped += "&#39;"; break;
            case '\n':
            case '\t': escaped += c; break;
            default:
                // A control character as its picture (U+2400 + code, U+2421 for DEL): visible,
                // and never markup.
                if (const auto code = static_cast<unsigned char>(c); code < 0x20 || code == 0x7f) {
                    char reference[12];
                    std::snprintf(reference, sizeof reference, "&#x%x;", code == 0x7f ? 0x2421u : 0x2400u + code);
                    escaped += reference;
                } else {
                    escaped += c;
                }
        }
    }
    return escaped;
}

std::string render_timeline(std::string_view json_lines, const TimelineHeading& heading, std::size_t max_events) {
    return Page(parse_events(json_lines), max_events).render(heading);
}

}  // namespace moq::runner
