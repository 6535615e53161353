// The core's locks. Every mutex of the core is taken through CoreLock, with its level in
// the lock order (docs/ARCHITECTURE.md: route, then track, then group, then the leaf
// locks). In a build with assertions (no NDEBUG) it counts the core locks this thread
// holds and remembers where and at which level the innermost was taken, so a waker run
// or a schedule point under a core lock (assert_no_core_lock), and a lock taken under
// one of its own level or a higher one, are caught where they happen, before the lock
// blocks. With NDEBUG, CoreLock is a plain std::lock_guard and the checks are nothing.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>

#include "util/assert.hpp"

namespace moq::kio {

// Where in the code something happened. Filled from __builtin_FILE and __builtin_LINE as
// default arguments (the caller's place), which GCC and clang both have, where clang 14
// with this standard library has no std::source_location.
struct CodePlace {
    const char* file = "";
    int line = 0;
};

// The lock order: a thread holding a lock takes only locks of a higher level.
enum class LockLevel : std::uint8_t {
    none = 0,            // no lock held
    route = 1,           // a route cell: its state holds the serving track's consumer
    track = 2,           // a track cell: its state holds a consumer of each group
    group = 3,           // a group cell
    cell = 4,            // any other cell (preferences, tests'); nothing is taken under it but leaves
    gate = 5,            // an idle gate's recorded task
    clock = 6,           // a clock's time
    timers = 7,          // a timer queue
    waiter_records = 8,  // an identity's records of the lists it joined: innermost
};

constexpr std::string_view lock_level_name(LockLevel level) {
    switch (level) {
        case LockLevel::none: return "none";
        case LockLevel::route: return "route";
        case LockLevel::track: return "track";
        case LockLevel::group: return "group";
        case LockLevel::cell: return "cell";
        case LockLevel::gate: return "gate";
        case LockLevel::clock: return "clock";
        case LockLevel::timers: return "timers";
        case LockLevel::waiter_records: return "waiter_records";
    }
    return "unknown";
}

// The level of the lock of a cell holding a T: its `lock_level` if it names one (the
// model's route, track and group states do), else `cell`.
template <class T>
constexpr LockLevel lock_level_of() {
    if constexpr (requires { T::lock_level; }) {
        return T::lock_level;
    } else {
        return LockLevel::cell;
    }
}
template <class T>
inline constexpr LockLevel cell_lock_level = lock_level_of<T>();

// Every core lock is seen here as it is taken, so a simulator that explores schedules
// can tell which objects a step touched (its footprint, sim/decisions.hpp). Only in a
// build with assertions; core_locks_observed says whether this build has it, and a
// build without it must report its steps' footprints as unknown.
using CoreLockObserver = void (*)(const void* mutex);
inline std::atomic<CoreLockObserver> core_lock_observer{nullptr};

#ifndef NDEBUG

inline constexpr bool core_locks_observed = true;

namespace detail {

struct HeldLocks {
    int count = 0;
    CodePlace innermost;
    LockLevel level = LockLevel::none;  // of the innermost, the highest held
};
inline thread_local HeldLocks held_locks;

}  // namespace detail

// Stops the program (through the assertion handler) unless `level` lies above every
// lock this thread holds; returns `mutex` to be locked.
inline std::mutex& in_lock_order(std::mutex& mutex, LockLevel level, CodePlace at) {
    const detail::HeldLocks& held = detail::held_locks;
    if (held.count == 0 || level > held.level) [[likely]]
        return mutex;
    util::assertion_failed(at.file, at.line,
                           std::string("core lock of level ") + std::string(lock_level_name(level)) +
                               " taken while this thread holds level " + std::string(lock_level_name(held.level)) +
                               ", taken at " + held.innermost.file + ":" + std::to_string(held.innermost.line) +
                               " (the order is route, track, group, then the leaf locks)");
}

class CoreLock {
public:
    CoreLock(std::mutex& mutex, LockLevel level, const char* file = __builtin_FILE(), int line = __builtin_LINE())
        : guard_(in_lock_order(mutex, level, CodePlace{file, line})),
          outer_(detail::held_locks.innermost),
          outer_level_(detail::held_locks.level),
          level_(level) {
        ++detail::held_locks.count;
        detail::held_locks.innermost = CodePlace{file, line};
        detail::held_locks.level = level;
        if (CoreLockObserver observer = core_lock_observer.load(std::memory_order_relaxed)) observer(&mutex);
    }
    ~CoreLock() {
        // Released innermost first, on the thread that took it: this is the innermost.
        MOQ_ASSERT_GT(detail::held_locks.count, 0);
        MOQ_ASSERT(detail::held_locks.level == level_);
        --detail::held_locks.count;
        detail::held_locks.innermost = outer_;
        detail::held_locks.level = outer_level_;
    }
    CoreLock(const CoreLock&) = delete;
    CoreLock& operator=(const CoreLock&) = delete;

private:
    std::lock_guard<std::mutex> guard_;
    CodePlace outer_;
    LockLevel outer_level_;
    LockLevel level_;
};

// How many core locks this thread holds now.
inline int core_locks_held() { return detail::held_locks.count; }

// Stops the program (through the assertion handler) if this thread holds a core lock:
// `what` happened at `at`, under the lock taken innermost.
inline void assert_no_core_lock(const char* what, CodePlace at) {
    const detail::HeldLocks& held = detail::held_locks;
    if (held.count == 0) [[likely]]
        return;
    util::assertion_failed(at.file, at.line,
                           std::string(what) + " while this thread holds " + std::to_string(held.count) +
                               " core lock(s), the innermost taken at " + held.innermost.file + ":" +
                               std::to_string(held.innermost.line));
}

#else

inline constexpr bool core_locks_observed = false;

class CoreLock {
public:
    CoreLock(std::mutex& mutex, LockLevel) : guard_(mutex) {}

private:
    std::lock_guard<std::mutex> guard_;
};

inline int core_locks_held() { return 0; }
inline void assert_no_core_lock(const char*, CodePlace) {}

#endif

}  // namespace moq::kio
