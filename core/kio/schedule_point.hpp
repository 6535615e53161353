// The one way the core reaches a simulator: a hook called where another task may run.
// Null in production, where a schedule point costs one relaxed load; a simulator
// installs it to run another task right there.
//
// Two kinds of points, told apart by name. Walk points lie between lock scopes inside a
// walk (the check-then-register windows). Wake points, named "wake.…", lie inside a
// wake path: between marking a state changed and waking its waiters, and after
// releasing a lock before running the wakers it collected. A simulator may leave the
// wake points out, so runs recorded before they existed keep their schedules.
#pragma once

#include <atomic>
#include <string>
#include <string_view>

#include "kio/core_lock.hpp"

namespace moq::kio {

// `object`: what the code from this point to the next one touches (a cell, a waiter
// list, a gate), or null when that is not known. A simulator that explores schedules
// lets steps on different objects commute (sleep sets); null conflicts with everything.
using SchedulePointHook = void (*)(const char* where, const void* object);

inline std::atomic<SchedulePointHook> schedule_point_hook{nullptr};

inline void set_schedule_point_hook(SchedulePointHook hook) {
    schedule_point_hook.store(hook, std::memory_order_release);
}

inline constexpr std::string_view wake_point_prefix = "wake.";

[[nodiscard]] inline bool is_wake_point(std::string_view where) { return where.starts_with(wake_point_prefix); }

// Another task may run here; never under a core lock (a build with assertions checks).
inline void schedule_point(const char* where, const void* object = nullptr, const char* file = __builtin_FILE(),
                           int line = __builtin_LINE()) {
    if (core_locks_held() != 0) [[unlikely]]
        assert_no_core_lock(("schedule point '" + std::string(where) + "' reached").c_str(), CodePlace{file, line});
    if (SchedulePointHook hook = schedule_point_hook.load(std::memory_order_relaxed)) hook(where, object);
}

}  // namespace moq::kio
