// The idle gate. A read that parked and is polled again by the same task, with nothing
// it registered on having fired, answers Pending at once instead of walking its read
// path again. `K` names the kind of walk (a resume reader has one gate per walk order).
//
// A full walk registers the gate's own waiter on every input, never the task's. When
// any input fires it, the gate marks itself fired and wakes the task it recorded. The
// reader itself must call disarm() whenever it changes its own state (no input fires
// for those): those calls are the disarm points.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

#include "kio/core_lock.hpp"
#include "kio/schedule_point.hpp"
#include "kio/waiter.hpp"
#include "kio/waker.hpp"
#include "util/assert.hpp"
#include "util/mutation.hpp"

namespace moq::model {

// Every gate of the process on or off, for side-by-side measurements of what the gates
// buy. On by default; off, every read walks in full.
inline std::atomic<bool> gates_switch{true};
inline void set_gates_enabled(bool enabled) { gates_switch.store(enabled, std::memory_order_relaxed); }
inline bool gates_enabled() { return gates_switch.load(std::memory_order_relaxed); }

namespace detail {

// The part of a gate its waker points at. Wakes arrive from any thread.
class IdleShared {
public:
    // The waker that input lists hold. Its data pointer is this block, so it stays the
    // same across walks and an outer gate's waker keeps an inner gate armed.
    kio::Waker waker() {
        refs_.fetch_add(1, std::memory_order_relaxed);
        return kio::Waker(&vtable, this);
    }

    void record(const kio::Waker& task) {
        kio::CoreLock lock(mutex_, kio::LockLevel::gate);
        task_ = task;
    }
    void clear_fired() { fired_.store(false, std::memory_order_release); }
    [[nodiscard]] bool fired() const { return fired_.load(std::memory_order_acquire); }

    static IdleShared* create() { return new IdleShared(); }
    void release() {
        if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
    }

private:
    IdleShared() = default;

    void fire() {
        // Marked before the task is woken: a task polled at once (inline, or on another
        // thread) must find the gate fired, or it answers Pending without walking. The
        // mutant marks it after the wake.
        const bool mark_first = MOQ_SITE("idle.fire.mark_before_wake", gate);
        if (mark_first) mark_fired();
        kio::schedule_point("wake.idle.fire");
        kio::Waker task;
        {
            kio::CoreLock lock(mutex_, kio::LockLevel::gate);
            task = task_;
        }
        // Outside the lock: the task may poll again inline and start a new walk.
        if (MOQ_SITE("idle.fire.wake_task", notify)) task.wake();
        if (!mark_first) mark_fired();
    }
    void mark_fired() {
        if (MOQ_SITE("idle.fire.mark_fired", gate)) fired_.store(true, std::memory_order_release);
    }

    static void* clone_fn(void* data) {
        static_cast<IdleShared*>(data)->refs_.fetch_add(1, std::memory_order_relaxed);
        return data;
    }
    static void wake_fn(void* data) { static_cast<IdleShared*>(data)->fire(); }
    static void drop_fn(void* data) { static_cast<IdleShared*>(data)->release(); }
    static constexpr kio::WakerVtable vtable{&clone_fn, &wake_fn, &drop_fn};

    std::atomic<std::uint32_t> refs_{1};
    std::atomic<bool> fired_{false};
    std::mutex mutex_;
    kio::Waker task_;
};

}  // namespace detail

template <class K>
class Idle {
public:
    Idle() : shared_(detail::IdleShared::create()), waiter_(shared_->waker()) {}
    Idle(const Idle&) = delete;
    Idle& operator=(const Idle&) = delete;
    ~Idle() { shared_->release(); }

    // True when the read may answer Pending without walking: armed, nothing fired,
    // the same kind of walk, and the same task that parked it.
    [[nodiscard]] bool parked(const kio::Waiter& waiter, const K& key) const {
        if (!armed_ || !(key_ == key) || !gates_enabled()) return false;
        // Armed only by a finished walk: the idle path's one extra compare.
        MOQ_ASSERT(!walking_);
        if (shared_->fired()) return false;
        if (!MOQ_SITE("idle.parked.will_wake", gate)) return true;
        return waiter.waker().will_wake(task_);
    }

    // Begins a full walk for `waiter`'s task. Returns the waiter the walk registers
    // on every input; its identity is the same for every walk of this gate.
    const kio::Waiter& start(const kio::Waiter& waiter, const K& key) {
        // Walks of one gate never nest or overlap: a gate is its reader's, polled by one
        // task at a time.
        MOQ_ASSERT(!walking_);
        walking_ = true;
        if (!task_.will_wake(waiter.waker())) {
            task_ = waiter.waker();
            shared_->record(task_);
        }
        key_ = key;
        armed_ = false;
        shared_->clear_fired();
        return waiter_;
    }

    // Ends a walk: arms iff it answered Pending and nothing fired while it ran.
    void finish(bool pending) {
        MOQ_ASSERT(walking_);
        walking_ = false;
        const bool fired = MOQ_SITE("idle.finish.fired_during_walk", gate) && shared_->fired();
        armed_ = pending && !fired;
    }

    // The next read walks in full.
    void disarm() { armed_ = false; }
    [[nodiscard]] bool walking() const { return walking_; }

    [[nodiscard]] bool armed() const { return armed_; }

private:
    detail::IdleShared* shared_;
    kio::Waiter waiter_;
    kio::Waker task_;
    K key_{};
    bool armed_ = false;
    bool walking_ = false;  // between start and finish
};

// Counts the walks and the gate's short answers of one reader, so a test or the
// oracle can check that a re-poll nothing woke walked nothing.
struct WalkCounter {
    std::uint64_t walks = 0;
    std::uint64_t idle_answers = 0;
};

}  // namespace moq::model
