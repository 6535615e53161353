// The atomics and mutexes of code that runs on real threads (the runtime), as points a
// simulator can switch tasks at. Built without MOQ_SYNC_POINTS they are exactly
// std::atomic and std::mutex: every call forwards, nothing is added. Built with it (the
// runtime's simulated variant, runtime/meson.build), every load, store,
// read-modify-write and lock first calls the sync hooks, so a simulator explores the
// interleavings of these operations one by one, and a lock another task holds parks the
// caller's task instead of blocking the one thread the simulator runs on.
//
// The two variants live in different inline namespaces, so they are different types
// and one program may hold both. The runtime built on them differs in layout between its
// two builds, so a program links one runtime or the other: the simulator's suites the
// simulated one, benchmarks and thread tests the plain one.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "kio/core_lock.hpp"

namespace moq::kio {

// What an operation on an atomic or lock did, as a happens-before checker sees it: a load
// reads (and acquires, with an acquire order), a store writes (and releases, with a
// release order), a read-modify-write does both. A lock is a load that acquires, an
// unlock a store that releases.
enum class SyncAccess : std::uint8_t { load, store, read_modify_write };

// Installed by a simulator for its runs; all null otherwise.
struct SyncHooks {
    // Another task may run before the operation on the atomic or lock named `where`.
    // `object`, as for a schedule point, is what the code up to the task's next point
    // touches: the atomic or the lock itself. The code after an operation touches more
    // (a task's poll, a queue's links), but in a program free of data races what it
    // touches besides is ordered by atomics and locks, so two steps whose operations are
    // on different objects commute; the core's locks taken meanwhile are added as they
    // are taken (core_lock_observer). Null (unknown) in a build that cannot see those.
    void (*point)(const char* where, const void* object) = nullptr;
    // The step now touches `object` too, without a switch (a plain atomic touched under
    // a core lock, or a mutex released).
    void (*touched)(const void* object) = nullptr;
    // The mutex `object` is held by another task: park the caller until it is released.
    void (*blocked)(const void* object) = nullptr;
    // The mutex `object` was released: tasks blocked on it may try again.
    void (*released)(const void* object) = nullptr;
    // The operation on `object` took place with `order`. Called after it, so that a
    // compare-exchange reports what it did: one that failed is a load with its failure
    // order.
    void (*ordered)(const void* object, SyncAccess access, std::memory_order order) = nullptr;
    // The object `what` names is freed by the running step: every earlier use of
    // `object` (an atomic whose operations reported their orders) must happen before.
    void (*freed)(const char* what, const void* object) = nullptr;
    // The running task spins until another task acts (sync_yield): run another first.
    void (*yield)() = nullptr;
};

inline std::atomic<const SyncHooks*> sync_hooks{nullptr};

inline void set_sync_hooks(const SyncHooks* hooks) { sync_hooks.store(hooks, std::memory_order_release); }

#if MOQ_SYNC_POINTS

inline namespace sync_points {

// Another task may run here, before the operation on `where`; never under a core lock,
// where a switch would leave the lock held by a task that is not running (a build with
// assertions checks).
inline void sync_point(const char* where, const void* object) {
    if (core_locks_held() != 0) [[unlikely]]
        assert_no_core_lock(("sync point '" + std::string(where) + "' reached").c_str(), CodePlace{__FILE__, __LINE__});
    if (const SyncHooks* hooks = sync_hooks.load(std::memory_order_acquire); hooks && hooks->point)
        hooks->point(where, core_locks_observed ? object : nullptr);
}

// The running step touches `object` (see SyncHooks::touched); never switches, so it may
// be called under a core lock.
inline void sync_touched(const void* object) noexcept {
    if (const SyncHooks* hooks = sync_hooks.load(std::memory_order_acquire); hooks && hooks->touched)
        hooks->touched(core_locks_observed ? object : nullptr);
}

// The operation on `object` took place (see SyncHooks::ordered); never switches.
inline void sync_ordered(const void* object, SyncAccess access, std::memory_order order) noexcept {
    if (const SyncHooks* hooks = sync_hooks.load(std::memory_order_acquire); hooks && hooks->ordered)
        hooks->ordered(object, access, order);
}

// See SyncHooks::freed; never switches.
inline void sync_freed(const char* what, const void* object) noexcept {
    if (const SyncHooks* hooks = sync_hooks.load(std::memory_order_acquire); hooks && hooks->freed)
        hooks->freed(what, object);
}

// The caller waits in a spin for another thread to act: a simulator runs another task
// first (a loop of loads alone would never give the one thread it runs on away); on real
// threads, the thread yields.
inline void sync_yield() {
    if (const SyncHooks* hooks = sync_hooks.load(std::memory_order_acquire); hooks && hooks->yield)
        hooks->yield();
    else
        std::this_thread::yield();
}

// An atomic whose every operation is a sync point named by the atomic's name. Not
// noexcept, unlike std::atomic: a point reached under a core lock fails an assertion,
// which a test may catch, and a simulator may unwind a task from its point.
template <class T>
class Atomic {
public:
    constexpr Atomic(const char* name, T initial) noexcept : value_(initial), name_(name) {}
    Atomic(const Atomic&) = delete;
    Atomic& operator=(const Atomic&) = delete;

    T load(std::memory_order order = std::memory_order_seq_cst) const {
        point();
        const T value = value_.load(order);
        ordered(SyncAccess::load, order);
        return value;
    }
    void store(T desired, std::memory_order order = std::memory_order_seq_cst) {
        point();
        value_.store(desired, order);
        ordered(SyncAccess::store, order);
    }
    T exchange(T desired, std::memory_order order = std::memory_order_seq_cst) {
        point();
        return updated(value_.exchange(desired, order), order);
    }
    T fetch_or(T bits, std::memory_order order = std::memory_order_seq_cst) {
        point();
        return updated(value_.fetch_or(bits, order), order);
    }
    T fetch_and(T bits, std::memory_order order = std::memory_order_seq_cst) {
        point();
        return updated(value_.fetch_and(bits, order), order);
    }
    T fetch_add(T step, std::memory_order order = std::memory_order_seq_cst) {
        point();
        return updated(value_.fetch_add(step, order), order);
    }
    T fetch_sub(T step, std::memory_order order = std::memory_order_seq_cst) {
        point();
        return updated(value_.fetch_sub(step, order), order);
    }
    bool compare_exchange_weak(T& expected, T desired, std::memory_order success, std::memory_order failure) {
        // A simulated run has one thread: a weak exchange fails only when the values
        // differ, so runs stay deterministic.
        return compare_exchange_strong(expected, desired, success, failure);
    }
    bool compare_exchange_strong(T& expected, T desired, std::memory_order success, std::memory_order failure) {
        point();
        const bool exchanged = value_.compare_exchange_strong(expected, desired, success, failure);
        if (exchanged)
            ordered(SyncAccess::read_modify_write, success);
        else
            ordered(SyncAccess::load, failure);
        return exchanged;
    }
    // Blocks the thread: a simulated task must never wait on an atomic.
    void wait(T old, std::memory_order order = std::memory_order_seq_cst) const noexcept { value_.wait(old, order); }
    void notify_all() noexcept { value_.notify_all(); }

private:
    void point() const { sync_point(name_, this); }
    void ordered(SyncAccess access, std::memory_order order) const { sync_ordered(this, access, order); }
    T updated(T before, std::memory_order order) {
        ordered(SyncAccess::read_modify_write, order);
        return before;
    }

    std::atomic<T> value_;
    const char* name_;
};

// A mutex whose lock is a sync point; a lock another task holds parks the caller.
class Mutex {
public:
    explicit constexpr Mutex(const char* name) noexcept : name_(name) {}
    Mutex(const Mutex&) = delete;
    Mutex& operator=(const Mutex&) = delete;

    void lock() {
        sync_point(name_, this);
        while (!mutex_.try_lock()) {
            const SyncHooks* hooks = sync_hooks.load(std::memory_order_acquire);
            if (!hooks || !hooks->blocked) {
                mutex_.lock();  // real threads: block as std::mutex does
                break;
            }
            hooks->blocked(this);
        }
        sync_ordered(this, SyncAccess::load, std::memory_order_acquire);
    }
    bool try_lock() {
        sync_point(name_, this);
        const bool locked = mutex_.try_lock();
        if (locked) sync_ordered(this, SyncAccess::load, std::memory_order_acquire);
        return locked;
    }
    void unlock() {
        sync_ordered(this, SyncAccess::store, std::memory_order_release);
        mutex_.unlock();
        sync_touched(this);
        if (const SyncHooks* hooks = sync_hooks.load(std::memory_order_acquire); hooks && hooks->released)
            hooks->released(this);
    }

private:
    std::mutex mutex_;
    const char* name_;
};

}  // namespace sync_points

#else

inline namespace plain {

// Exactly std::atomic: the name is for the simulated variant.
template <class T>
class Atomic : public std::atomic<T> {
public:
    constexpr Atomic(const char*, T initial) noexcept : std::atomic<T>(initial) {}
};

// Exactly std::mutex: the name is for the simulated variant.
class Mutex : public std::mutex {
public:
    explicit constexpr Mutex(const char*) noexcept {}
};

// Nothing to tell without a simulator.
inline void sync_touched(const void*) noexcept {}
inline void sync_yield() noexcept { std::this_thread::yield(); }

}  // namespace plain

#endif

}  // namespace moq::kio
