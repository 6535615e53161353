#include "sim/trace.hpp"

#include <cstdio>
#include <cstring>
#include <type_traits>

// xxHash's own header, its functions inlined, as its documentation advises for short
// inputs: an event's record is 24 or 64 bytes.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "sim/executor.hpp"
#include "util/json_quote.hpp"

namespace moq::sim {

struct Trace::Head {
    std::uint64_t step;
    std::int64_t time;
    std::uint32_t task;
    std::uint8_t kind;
    std::uint8_t code;
    std::uint8_t present;  // bit i: value i
    std::uint8_t flags;    // has_name, has_label, has_message
};

namespace {

using Head = Trace::Head;

// The bytes the digest hashes for one event, little-endian as the machine holds them:
// the head, then the payload (names' ids and values). An event with no name, label,
// value or message is hashed by its head alone.
struct Record {
    Head head;
    std::uint64_t name;
    std::uint64_t label;
    std::array<std::int64_t, 3> values;
};
static_assert(sizeof(Head) == 24 && sizeof(Record) == 64);
static_assert(std::has_unique_object_representations_v<Record>, "no padding: every byte hashed is a field's");

constexpr std::uint8_t has_name = 1;
constexpr std::uint8_t has_label = 2;
constexpr std::uint8_t has_message = 4;

std::uint64_t hash_record(const Record& record, std::uint64_t seed) {
    if (record.head.present == 0 && record.head.flags == 0)
        return XXH3_64bits_withSeed(&record.head, sizeof(Head), seed);
    return XXH3_64bits_withSeed(&record, sizeof(Record), seed);
}

void append_number(std::string& line, std::int64_t value) { line += std::to_string(value); }

void append_field(std::string& line, std::string_view key, std::string_view text) {
    line += ",\"";
    line += key;
    line += "\":";
    line += util::json_quote(text);
}

void append_number_field(std::string& line, std::string_view key, std::int64_t value) {
    line += ",\"";
    line += key;
    line += "\":";
    append_number(line, value);
}

void append_values(std::string& line, std::string_view key, const TraceEntry& entry) {
    if (entry.present == 0) return;
    line += ",\"";
    line += key;
    line += "\":[";
    bool first = true;
    for (int slot = 0; slot < 3; ++slot) {
        if (!entry.has(slot)) continue;
        if (!first) line += ',';
        append_number(line, entry.values[static_cast<std::size_t>(slot)]);
        first = false;
    }
    line += ']';
}

// The waking task of a wake: its name and id.
void append_waker(std::string& line, const TraceEntry& entry) {
    if (!entry.has(0)) return;
    if (!entry.waker.empty()) append_field(line, "by", entry.waker);
    append_number_field(line, "by_id", entry.values[0]);
}

}  // namespace

std::string_view event_kind_name(EventKind kind) {
    constexpr std::array<std::string_view, event_kind_count> names{
        "seed",    "spawn", "run", "poll", "wake",      "stale_wake", "spurious", "eager",  "fresh_task",
        "preempt", "time",  "end", "note", "operation", "answer",     "gate",     "verdict"};
    const auto index = static_cast<std::size_t>(kind);
    return index < names.size() ? names[index] : "unknown";
}

std::string_view event_code_name(EventKind kind, std::uint8_t code) {
    switch (kind) {
        case EventKind::poll: return code == 0 ? "pending" : "ready";
        case EventKind::wake: {
            constexpr std::array<std::string_view, 5> effects{"queued", "inline", "deduplicated", "during_poll",
                                                              "finished"};
            return code < effects.size() ? effects[code] : "unknown";
        }
        case EventKind::end: return outcome_name(static_cast<Outcome>(code));
        case EventKind::answer: {
            constexpr std::array<std::string_view, 4> answers{"item", "end", "error", "pending"};
            return code < answers.size() ? answers[code] : "unknown";
        }
        case EventKind::gate: return code == 0 ? "walked" : "idle";
        case EventKind::verdict: return code == 0 ? "ok" : "violated";
        default: return {};
    }
}

std::uint64_t Trace::name_id(const char* name) {
    const auto address = reinterpret_cast<std::uintptr_t>(name);
    const std::size_t slot = (address ^ address >> 5) % name_keys_.size();
    if (name_keys_[slot] != name) {
        name_keys_[slot] = name;
        name_ids_[slot] = XXH3_64bits(name, std::strlen(name));
    }
    return name_ids_[slot];
}

void Trace::add(const Event& event, std::uint64_t step, std::int64_t time, std::string_view message,
                std::string* detail) {
    const Head head{step,       time,
                    event.task, static_cast<std::uint8_t>(event.kind),
                    event.code, static_cast<std::uint8_t>(event.present & 7u),
                    0};
    // Most of the schedule (run, poll, spurious, eager) is a head alone.
    if (head.present == 0 && !event.name && !event.label && message.empty())
        digest_ = XXH3_64bits_withSeed(&head, sizeof(Head), digest_);
    else
        add_payload(event, head, message);
    ++events_;
    if (keep_) keep(event, step, time, message, detail);
}

void Trace::add_payload(const Event& event, const Head& head, std::string_view message) {
    Record record{head, 0, 0, {}};
    if (event.name) {
        record.head.flags |= has_name;
        record.name = name_id(event.name);
    }
    if (event.label) {
        record.head.flags |= has_label;
        record.label = name_id(event.label);
    }
    if (!message.empty()) record.head.flags |= has_message;
    for (std::size_t slot = 0; slot < 3; ++slot)
        if (event.has(static_cast<int>(slot))) record.values[slot] = event.values[slot];
    digest_ = hash_record(record, digest_);
    if (!message.empty()) digest_ = XXH3_64bits_withSeed(message.data(), message.size(), digest_);
    if (event.kind == EventKind::answer) {
        record.head.step = 0;
        record.head.time = 0;
        answers_digest_ = hash_record(record, answers_digest_);
        if (!message.empty()) answers_digest_ = XXH3_64bits_withSeed(message.data(), message.size(), answers_digest_);
    }
}

void Trace::keep(const Event& event, std::uint64_t step, std::int64_t time, std::string_view message,
                 std::string* detail) {
    TraceEntry entry;
    entry.step = step;
    entry.time = time;
    entry.kind = event.kind;
    entry.code = event.code;
    entry.present = event.present & 7u;
    entry.task = event.task;
    for (std::size_t slot = 0; slot < 3; ++slot)
        entry.values[slot] = entry.has(static_cast<int>(slot)) ? event.values[slot] : 0;
    if (event.kind == EventKind::spawn && event.task != no_task && event.name) {
        if (task_names_.size() <= event.task) task_names_.resize(event.task + 1);
        task_names_[event.task] = event.name;
    }
    if (event.task != no_task && event.task < task_names_.size()) entry.task_name = task_names_[event.task];
    const bool woken = event.kind == EventKind::wake || event.kind == EventKind::stale_wake;
    if (woken && event.has(0) && static_cast<std::uint64_t>(event.values[0]) < task_names_.size())
        entry.waker = task_names_[static_cast<std::size_t>(event.values[0])];
    if (event.name) entry.name = event.name;
    if (event.label) entry.label = event.label;
    entry.message = message;
    if (detail) entry.detail = std::move(*detail);
    entries_.push_back(std::move(entry));
}

std::string Trace::digest_hex() const {
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(digest_));
    return text;
}

std::int64_t Trace::content_hash(std::string_view bytes) {
    return static_cast<std::int64_t>(XXH3_64bits(bytes.data(), bytes.size()));
}

std::string_view rule_of(std::string_view message) {
    std::size_t letters = 0;
    while (letters < message.size() && message[letters] >= 'A' && message[letters] <= 'Z') ++letters;
    std::size_t digits = letters;
    while (digits < message.size() && message[digits] >= '0' && message[digits] <= '9') ++digits;
    if (letters == 0 || digits == letters || digits >= message.size() || message[digits] != ':') return {};
    return message.substr(0, digits);
}

namespace {

// An answer's fields: which read, how it answered, and what it handed out.
void append_answer(std::string& line, const TraceEntry& entry) {
    append_field(line, "read", entry.name);
    append_field(line, "answer", event_code_name(entry.kind, entry.code));
    if (entry.has(answer_sequence)) append_number_field(line, "sequence", entry.values[answer_sequence]);
    if (entry.has(answer_source)) append_number_field(line, "source", entry.values[answer_source]);
    if (entry.has(answer_content)) {
        char hex[17];
        std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(entry.values[answer_content]));
        append_field(line, "content", hex);
    }
    if (!entry.label.empty()) append_field(line, "error", entry.label);
}

}  // namespace

std::string trace_json_line(const TraceEntry& entry, bool first) {
    std::string line = "{\"step\":" + std::to_string(entry.step) + ",\"time\":" + std::to_string(entry.time) +
                       ",\"event\":\"" + std::string(event_kind_name(entry.kind)) + "\"";
    if (first) append_number_field(line, "schema", trace_schema);
    if (entry.task != no_task) {
        if (!entry.task_name.empty()) append_field(line, "task", entry.task_name);
        append_number_field(line, "task_id", entry.task);
    }
    const std::string_view code = event_code_name(entry.kind, entry.code);
    switch (entry.kind) {
        case EventKind::seed: line += ",\"seed\":" + std::to_string(static_cast<std::uint64_t>(entry.values[0])); break;
        case EventKind::spawn:
        case EventKind::run:
        case EventKind::spurious:
        case EventKind::eager: break;
        case EventKind::poll: append_field(line, "result", code); break;
        case EventKind::wake:
            append_field(line, "effect", code);
            append_waker(line, entry);
            break;
        case EventKind::stale_wake:
            append_waker(line, entry);
            append_number_field(line, "identity", entry.values[1]);
            break;
        case EventKind::fresh_task: append_number_field(line, "identity", entry.values[1]); break;
        case EventKind::preempt: append_field(line, "at", entry.name); break;
        case EventKind::time: append_number_field(line, "to", entry.values[0]); break;
        case EventKind::end: append_field(line, "outcome", code); break;
        case EventKind::note:
            append_field(line, "note", entry.name);
            append_values(line, "values", entry);
            break;
        case EventKind::operation:
            append_field(line, "op", entry.name);
            append_values(line, "args", entry);
            break;
        case EventKind::answer: append_answer(line, entry); break;
        case EventKind::gate:
            if (!entry.name.empty()) append_field(line, "gate", entry.name);
            append_field(line, "answer", code);
            append_number_field(line, "walks", entry.values[0]);
            break;
        case EventKind::verdict:
            append_field(line, "verdict", code);
            if (!entry.name.empty()) append_field(line, "check", entry.name);
            break;
    }
    if (!entry.message.empty()) {
        if (const std::string_view rule = rule_of(entry.message); !rule.empty()) append_field(line, "rule", rule);
        append_field(line, "message", entry.message);
    }
    if (!entry.detail.empty()) append_field(line, "detail", entry.detail);
    line += '}';
    return line;
}

std::string trace_json_lines(const std::vector<TraceEntry>& entries) {
    std::string text;
    bool first = true;
    for (const TraceEntry& entry : entries) {
        text += trace_json_line(entry, first);
        text += '\n';
        first = false;
    }
    return text;
}

}  // namespace moq::sim
