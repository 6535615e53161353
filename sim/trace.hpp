// What a run did: a 64-bit digest of every event, and the events themselves when a trace
// is kept. The same seed gives the same digest on every build type.
//
// The digest hashes each event's binary record (its kind, code, task, step, virtual time,
// the hashes of its names' text and its integers) with XXH3, chained: each record is
// hashed with the digest so far as the seed. A message (a failure's) is hashed after its
// event's record; a sweep of passing cases hashes none. Text is built only when the
// trace is kept. docs/TESTING.md describes the records and the JSON lines.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/event.hpp"

namespace moq::sim {

// The version of the trace schema: the event kinds and fields, the JSON lines and the
// digest. The first JSON line of a trace carries it as "schema".
inline constexpr int trace_schema = 3;

// An event as a kept trace holds it, for the JSON lines and other renderings.
struct TraceEntry {
    std::uint64_t step = 0;
    std::int64_t time = 0;  // virtual time, ns since the run began
    EventKind kind = EventKind::note;
    std::uint8_t code = 0;
    std::uint8_t present = 0;
    std::uint32_t task = no_task;
    std::string task_name;  // empty without a task
    std::string waker;      // wake, stale_wake: the waking task's name (its id is value 0)
    std::string name;
    std::string label;
    std::array<std::int64_t, 3> values{};
    std::string message;  // hashed: a failure's message, a note's text
    std::string detail;   // not hashed: how the event reads (an operation as the case says it, a frame's bytes)
    [[nodiscard]] bool has(int slot) const { return (present >> slot & 1u) != 0; }
};

class Trace {
public:
    explicit Trace(bool keep_events) : keep_(keep_events) {}

    // One event at `step` and `time` (ns). `message` is hashed with it; `detail` is kept
    // with the events only and never hashed, so it must follow from the event's fields.
    void record(const Event& event, std::uint64_t step, std::int64_t time, std::string_view message = {}) {
        add(event, step, time, message, nullptr);
    }
    void record(const Event& event, std::uint64_t step, std::int64_t time, std::string_view message,
                std::string detail) {
        add(event, step, time, message, &detail);
    }

    [[nodiscard]] bool keeping() const { return keep_; }
    [[nodiscard]] std::uint64_t digest() const { return digest_; }
    // The answer events alone, without their step and time: what the readers handed
    // out, in order, whatever the schedule around it.
    [[nodiscard]] std::uint64_t answers_digest() const { return answers_digest_; }
    [[nodiscard]] std::uint64_t events() const { return events_; }
    [[nodiscard]] const std::vector<TraceEntry>& entries() const { return entries_; }
    [[nodiscard]] std::vector<TraceEntry> take_entries() { return std::move(entries_); }
    [[nodiscard]] std::string digest_hex() const;

    // A 64-bit hash of bytes a reader handed out, for an answer's content field.
    [[nodiscard]] static std::int64_t content_hash(std::string_view bytes);

    struct Head;  // the first bytes of an event's record (trace.cpp)

private:
    void add(const Event& event, std::uint64_t step, std::int64_t time, std::string_view message, std::string* detail);
    void add_payload(const Event& event, const Head& head, std::string_view message);
    void keep(const Event& event, std::uint64_t step, std::int64_t time, std::string_view message, std::string* detail);
    std::uint64_t name_id(const char* name);

    bool keep_;
    std::uint64_t digest_ = 0;
    std::uint64_t answers_digest_ = 0;
    std::uint64_t events_ = 0;
    // Names by address: a name's id is the hash of its text, looked up once per address.
    std::array<const char*, 32> name_keys_{};
    std::array<std::uint64_t, 32> name_ids_{};
    std::vector<std::string> task_names_;  // by task id, when kept
    std::vector<TraceEntry> entries_;
};

// The name of an event's code: a poll's result, a wake's effect, an answer's kind, a
// gate's answer, a verdict, an end's outcome (empty for other kinds).
std::string_view event_code_name(EventKind kind, std::uint8_t code);
// The JSON lines of kept events, one object a line; the first carries "schema".
std::string trace_json_lines(const std::vector<TraceEntry>& entries);
std::string trace_json_line(const TraceEntry& entry, bool first);
// The rule id a message starts with ("R12" of "R12: ..."), or empty.
std::string_view rule_of(std::string_view message);

}  // namespace moq::sim
