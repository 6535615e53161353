// The core's locks. Every mutex of the core is taken through CoreLock. In a build with
// assertions (no NDEBUG) it counts the core locks this thread holds and remembers where
// the innermost was taken, so a waker run or a schedule point under a core lock is
// caught where it happens (assert_no_core_lock). With NDEBUG, CoreLock is a plain
// std::lock_guard and the check is nothing.
#pragma once

#include <mutex>
#include <string>

#include "util/assert.hpp"

namespace moq::kio {

// Where in the code something happened. Filled from __builtin_FILE and __builtin_LINE as
// default arguments (the caller's place), which GCC and clang both have, where clang 14
// with this standard library has no std::source_location.
struct CodePlace {
    const char* file = "";
    int line = 0;
};

#ifndef NDEBUG

namespace detail {

struct HeldLocks {
    int count = 0;
    CodePlace innermost;
};
inline thread_local HeldLocks held_locks;

}  // namespace detail

class CoreLock {
public:
    explicit CoreLock(std::mutex& mutex, const char* file = __builtin_FILE(), int line = __builtin_LINE())
        : guard_(mutex), outer_(detail::held_locks.innermost) {
        ++detail::held_locks.count;
        detail::held_locks.innermost = CodePlace{file, line};
    }
    ~CoreLock() {
        --detail::held_locks.count;
        detail::held_locks.innermost = outer_;
    }
    CoreLock(const CoreLock&) = delete;
    CoreLock& operator=(const CoreLock&) = delete;

private:
    std::lock_guard<std::mutex> guard_;
    CodePlace outer_;
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

using CoreLock = std::lock_guard<std::mutex>;

inline int core_locks_held() { return 0; }
inline void assert_no_core_lock(const char*, CodePlace) {}

#endif

}  // namespace moq::kio
