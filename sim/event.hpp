// One thing that happened in a simulated run, as the trace records it: a kind, the task it
// is about, up to two names, up to three integers, and (for a failure) a message. The
// executor records the schedule; the suites' drivers and readers record operations,
// answers, gate answers and verdicts through the same call (Executor::record). The trace
// stamps each with the step and the virtual time. docs/TESTING.md lists every kind.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string_view>

namespace moq::sim {

inline constexpr std::uint32_t no_task = 0xFFFFFFFFu;

enum class EventKind : std::uint8_t {
    // The schedule, recorded by the executor.
    seed,        // the run's first event: its seed and strategy
    spawn,       // a task exists (name: the task's name)
    run,         // the strategy picked the task
    poll,        // one poll of a wait: PollResult
    wake,        // a waker fired: WakeEffect; value 0: the waking task
    stale_wake,  // a wake to an identity the task no longer polls with (value 0: the waker, 1: the identity)
    spurious,    // the task is polled without a wake
    eager,       // the task is polled again after a step (drive eager)
    fresh_task,  // the task polls from a new identity (value 1)
    preempt,     // switched away at a schedule point (name: the point)
    time,        // the clock moves to value 0 (ns)
    end,         // the last event: Outcome; a failure's message as text
    // What the tasks and the checks tell.
    note,       // a scenario's own event (name, values, text)
    operation,  // a driver operation (name) with its arguments (values)
    answer,     // a reader's answer (name: the read) : AnswerKind; sequence, source, content
    gate,       // how an idle gate answered a poll: GateAnswer; value 0: the walks so far
    verdict,    // the model's judgement: Verdict; a violation's message as text (rule first)
};
inline constexpr std::size_t event_kind_count = static_cast<std::size_t>(EventKind::verdict) + 1;
std::string_view event_kind_name(EventKind kind);

enum class PollResult : std::uint8_t { pending, ready };
enum class WakeEffect : std::uint8_t { queued, inlined, deduplicated, during_poll, finished };
enum class AnswerKind : std::uint8_t { item, end, error, pending };
enum class GateAnswer : std::uint8_t { walked, idle };
enum class Verdict : std::uint8_t { ok, violated };

// The answer fields: what a reader handed out, and where from.
inline constexpr int answer_sequence = 0;  // the group's sequence, or the frame's index
inline constexpr int answer_source = 1;    // the copy it came from, as the reader reports it
inline constexpr int answer_content = 2;   // a hash of the bytes read (Trace::content_hash)

struct Event {
    EventKind kind = EventKind::note;
    std::uint8_t code = 0;     // the kind's enum (PollResult, WakeEffect, AnswerKind, GateAnswer, Verdict, ...)
    std::uint8_t present = 0;  // bit i: values[i] holds something
    std::uint32_t task = no_task;
    // Names outlive the run: string literals, or the run's own task names. The trace
    // hashes their text, never their address.
    const char* name = nullptr;   // operation, read, gate, preempt point, task, note
    const char* label = nullptr;  // answer: the error's name
    std::array<std::int64_t, 3> values{};

    Event& with(int slot, std::int64_t value) {
        values[static_cast<std::size_t>(slot)] = value;
        present = static_cast<std::uint8_t>(present | (1u << slot));
        return *this;
    }
    [[nodiscard]] bool has(int slot) const { return (present >> slot & 1u) != 0; }
};

// A driver operation and its arguments, in order.
inline Event operation_event(const char* name, std::initializer_list<std::int64_t> arguments) {
    Event event{.kind = EventKind::operation, .name = name};
    int slot = 0;
    for (std::int64_t argument : arguments)
        if (slot < 3) event.with(slot++, argument);
    return event;
}

// A reader's answer to the read `read`.
inline Event answer_event(const char* read, AnswerKind answer) {
    return Event{.kind = EventKind::answer, .code = static_cast<std::uint8_t>(answer), .name = read};
}

}  // namespace moq::sim
