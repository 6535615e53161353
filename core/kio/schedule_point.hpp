// The one way the core reaches a simulator: a hook called between lock scopes inside a
// walk (the check-then-register windows). Null in production, where a schedule point
// costs one relaxed load; a simulator installs it to run another task right there.
#pragma once

#include <atomic>

namespace moq::kio {

using SchedulePointHook = void (*)(const char* where);

inline std::atomic<SchedulePointHook> schedule_point_hook{nullptr};

inline void set_schedule_point_hook(SchedulePointHook hook) {
    schedule_point_hook.store(hook, std::memory_order_release);
}

inline void schedule_point(const char* where) {
    if (SchedulePointHook hook = schedule_point_hook.load(std::memory_order_relaxed)) hook(where);
}

}  // namespace moq::kio
