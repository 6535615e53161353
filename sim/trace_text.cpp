#include "sim/trace_text.hpp"

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cstdio>
#include <string_view>

namespace moq::sim {

namespace {

void append_word(std::string& text, std::string_view word) {
    if (word.empty()) return;
    if (!text.empty()) text += ' ';
    text += word;
}

// The values present, as `[1,2]`.
std::string values_text(const TraceEntry& entry) {
    std::string text;
    for (int slot = 0; slot < 3; ++slot) {
        if (!entry.has(slot)) continue;
        text += text.empty() ? "[" : ",";
        text += std::to_string(entry.values[static_cast<std::size_t>(slot)]);
    }
    return text.empty() ? text : text + "]";
}

std::string answer_text(const TraceEntry& entry) {
    std::string text = entry.name;
    append_word(text, event_code_name(entry.kind, entry.code));
    if (entry.has(answer_sequence)) append_word(text, "sequence " + std::to_string(entry.values[answer_sequence]));
    if (entry.has(answer_source)) append_word(text, "source " + std::to_string(entry.values[answer_source]));
    if (entry.has(answer_content)) {
        char hex[17];
        std::snprintf(hex, sizeof hex, "%016" PRIx64, static_cast<std::uint64_t>(entry.values[answer_content]));
        append_word(text, std::string("content ") + hex);
    }
    append_word(text, entry.label);
    if (!entry.detail.empty()) append_word(text, "\"" + entry.detail + "\"");
    return text;
}

std::string pad(std::string text, std::size_t width) {
    if (text.size() < width) text.append(width - text.size(), ' ');
    return text;
}

std::string pad_left(const std::string& text, std::size_t width) {
    return text.size() < width ? std::string(width - text.size(), ' ') + text : text;
}

std::string task_text(const TraceEntry& entry) {
    if (entry.task == no_task) return "-";
    return entry.task_name.empty() ? "#" + std::to_string(entry.task) : entry.task_name;
}

}  // namespace

std::string trace_text_time(std::int64_t nanoseconds) {
    const bool negative = nanoseconds < 0;
    const std::uint64_t magnitude =
        negative ? 0 - static_cast<std::uint64_t>(nanoseconds) : static_cast<std::uint64_t>(nanoseconds);
    char text[32];
    std::snprintf(text, sizeof text, "%s%" PRIu64 ".%09" PRIu64, negative ? "-" : "", magnitude / 1000000000u,
                  magnitude % 1000000000u);
    return text;
}

std::string trace_text_details(const TraceEntry& entry) {
    const std::string_view code = event_code_name(entry.kind, entry.code);
    std::string text;
    switch (entry.kind) {
        case EventKind::seed: text = "seed " + std::to_string(static_cast<std::uint64_t>(entry.values[0])); break;
        case EventKind::spawn:
        case EventKind::run:
        case EventKind::spurious:
        case EventKind::eager: break;
        case EventKind::poll: text = code; break;
        case EventKind::wake:
            text = code;
            if (entry.has(0))
                append_word(text, "by " + (entry.waker.empty() ? "#" + std::to_string(entry.values[0]) : entry.waker));
            break;
        case EventKind::stale_wake:
            if (entry.has(0))
                text = "by " + (entry.waker.empty() ? "#" + std::to_string(entry.values[0]) : entry.waker) + ",";
            append_word(text, "identity " + std::to_string(entry.values[1]));
            break;
        case EventKind::fresh_task: text = "identity " + std::to_string(entry.values[1]); break;
        case EventKind::preempt: text = "at " + entry.name; break;
        case EventKind::time: text = "to " + trace_text_time(entry.values[0]); break;
        case EventKind::end: text = code; break;
        case EventKind::note:
            text = entry.name;
            append_word(text, values_text(entry));
            break;
        case EventKind::operation:
            // As the case's description writes it, when the trace kept that; else its
            // name and arguments.
            text = entry.detail.empty() ? entry.name : entry.detail;
            if (entry.present != 0) append_word(text, "args " + values_text(entry));
            break;
        case EventKind::answer: text = answer_text(entry); break;
        case EventKind::gate:
            text = std::string(code) + ", " + std::to_string(entry.values[0]) + " walks";
            if (!entry.name.empty()) text = entry.name + " " + text;
            break;
        case EventKind::verdict:
            text = code;
            if (!entry.name.empty()) append_word(text, "(" + entry.name + ")");
            break;
    }
    if (!entry.message.empty()) append_word(text, entry.message);
    return text;
}

std::string trace_text_lines(const std::vector<TraceEntry>& entries) {
    struct Row {
        std::string time, step, task, event, details;
    };
    std::vector<Row> rows;
    rows.reserve(entries.size() + 1);
    rows.push_back(
        {"time (s)", "step", "task", "event", "details (trace schema " + std::to_string(trace_schema) + ")"});
    for (const TraceEntry& entry : entries)
        rows.push_back({trace_text_time(entry.time), std::to_string(entry.step), task_text(entry),
                        std::string(event_kind_name(entry.kind)), trace_text_details(entry)});
    std::array<std::size_t, 4> widths{};
    for (const Row& row : rows) {
        widths[0] = std::max(widths[0], row.time.size());
        widths[1] = std::max(widths[1], row.step.size());
        widths[2] = std::max(widths[2], row.task.size());
        widths[3] = std::max(widths[3], row.event.size());
    }
    std::string text;
    for (const Row& row : rows) {
        std::string line = pad_left(row.time, widths[0]) + "  " + pad_left(row.step, widths[1]) + "  " +
                           pad(row.task, widths[2]) + "  " + pad(row.event, widths[3]) + "  " + row.details;
        while (!line.empty() && line.back() == ' ') line.pop_back();
        text += line;
        text += '\n';
    }
    return text;
}

}  // namespace moq::sim
