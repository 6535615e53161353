// The points where a run could go more than one way, and the choices a run made there.
// The executor asks its decider (sim/decider.hpp) at every such point, whichever decider
// it holds, so a sweep, an exploration and a replay see the same points with the same
// domains (docs/TESTING.md, "Decisions"):
//   pick           which runnable task runs next (its tasks, in the order they became
//                  runnable); the default is the task that ran last while it can still run
//                  (leaving it is a preemption), else the first;
//   preempt        at a schedule, sync or wake point: 0 goes on, i switches to the i-th
//                  other runnable task (costly);
//   timer_tie      the order of the wakes of timers due at one instant, where the order
//                  shows (inline wakes): which of the held wakes goes next;
//   spurious_poll  0 polls no parked task without a wake, i polls the i-th parked task
//                  (costly; only where the drive leaves spurious polls open);
//   fresh_poll     1 makes this poll from a new task identity (costly; where open);
//   clock_jump     0 moves the clock to its next deadline, k jumps clock_jump_size(k)
//                  past it (costly; where the world injects clock jumps).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kio/time.hpp"

namespace moq::sim {

enum class DecisionKind : std::uint8_t { pick, preempt, timer_tie, spurious_poll, fresh_poll, clock_jump };
std::string_view decision_kind_name(DecisionKind kind);
std::optional<DecisionKind> parse_decision_kind(std::string_view name);

// A point where a run could go `options` ways.
struct DecisionPoint {
    DecisionKind kind = DecisionKind::pick;
    std::uint32_t options = 1;   // the choices are 0 .. options - 1
    std::uint32_t fallback = 0;  // the default choice
    // A choice other than the default costs one unit of the preemption bound: a switch
    // away from a task that could still run, or a fault the case left open.
    bool costly = false;
    const char* where = "";  // the schedule point's label, or the kind's name: a literal, kept past the run
    // The task each choice runs next (pick, preempt), `options` of them; null for the
    // drive's choices and timer ties. Valid during Decider::choose only.
    const std::uint32_t* tasks = nullptr;
    // The digest of everything that decides the run's future from here (each task's status
    // and where it stands, the clock, and the suite's core and model state through
    // Executor::on_state); only when the decider wants it and the suite gives its part.
    std::optional<std::uint64_t> state = std::nullopt;
};

// A clock jump's sizes: choice k (1 .. clock_jump_sizes) of a clock_jump point moves the
// clock k quarters of (max - 1) past the next deadline, so the largest stays below `max`.
inline constexpr std::uint32_t clock_jump_sizes = 4;
kio::Duration clock_jump_size(kio::Duration max, std::uint32_t choice);

// One decision of a recorded run.
struct Decision {
    DecisionKind kind = DecisionKind::pick;
    std::uint32_t options = 1;
    std::uint32_t choice = 0;
    std::string where;
    std::uint32_t fallback = 0;  // the point's default (not stored in a file)
};

// "pick 1/3 @label" lines' short form: `kind choice/options where`, one a decision.
std::string describe_decisions(const std::vector<Decision>& decisions);

}  // namespace moq::sim
