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
#include "util/probe.hpp"

namespace moq::model {

namespace detail {

// A gate's state (IdleShared): the owner sets and clears `armed_bit`, a wake sets
// `fired_bit`, and a walk's start clears both.
inline constexpr std::uint8_t armed_bit = 1;
inline constexpr std::uint8_t fired_bit = 2;
// A value no gate's state takes.
inline constexpr std::uint8_t never_parked = 0xFF;

// The state of a gate that may answer without walking: armed with nothing fired while
// gates are on, `never_parked` while they are off. The process switch is this value, so
// the idle path's one compare of the gate's state reads it too.
inline std::atomic<std::uint8_t> parked_state{armed_bit};

}  // namespace detail

// Every gate of the process on or off, for side-by-side measurements of what the gates
// buy. On by default; off, every read walks in full.
inline void set_gates_enabled(bool enabled) {
    detail::parked_state.store(enabled ? detail::armed_bit : detail::never_parked, std::memory_order_relaxed);
}
inline bool gates_enabled() { return detail::parked_state.load(std::memory_order_relaxed) == detail::armed_bit; }

namespace detail {

// The part of a gate its waker points at. Wakes arrive from any thread.
class IdleShared {
public:
    // The waker that input lists hold. Its data pointer is this block, so it stays the
    // same across walks and an outer gate's waker keeps an inner gate armed.
    kio::Waker waker() {
        const std::uint32_t before = refs_.fetch_add(1, std::memory_order_relaxed);
        MOQ_ASSERT_GT(before, 0u);  // the caller holds one
        return kio::Waker(&vtable, this);
    }

    // The owner's side (the task polling the gate's reader, one at a time). A walk's
    // start records the task it runs for; the fire path reads it under the lock, the
    // owner, its only writer, reads it without.
    void start_walk(const kio::Waiter& waiter) {
        if (!task_.will_wake(waiter.waker())) {
            // A task other than the one that walked last: from now on a fire wakes it (I6, W6).
            MOQ_SOMETIMES("idle.start.task_changed", !task_.is_noop());
            kio::CoreLock lock(mutex_, kio::LockLevel::gate);
            task_ = waiter.waker();
        }
        // The serial stands for task_ from here on: its waiter's waker will wake it.
        task_serial_ = waiter.serial();
        clear();
        // Only the owner arms, and it is here: a wake since the clear only marks it fired.
        MOQ_ASSERT(!armed());
        MOQ_ASSERT(task_.will_wake(waiter.waker()));
    }
    // The idle path past the key: armed, nothing fired, gates on, and the recorded
    // task, known by the serial of the waiter that walked last or else by will_wake.
    [[nodiscard]] bool parked(const kio::Waiter& waiter) const {
        if (!quiet()) return false;
        if (!MOQ_SITE("idle.parked.will_wake", gate)) return true;
        return waiter.serial() == task_serial_ || waiter.waker().will_wake(task_);
    }

    // The gate's state (armed_bit, fired_bit), one atomic byte for the idle path.
    // The state word holds only the two bits, so it never reads as `never_parked`; a gate
    // arms once per walk, whose start cleared it.
    void clear() { state_.store(0, std::memory_order_release); }
    void arm() {
        const std::uint8_t before = state_.fetch_or(armed_bit, std::memory_order_acq_rel);
        MOQ_ASSERT_EQ(before & ~fired_bit, 0);
    }
    void disarm() {
        const std::uint8_t before = state_.fetch_and(static_cast<std::uint8_t>(~armed_bit), std::memory_order_acq_rel);
        MOQ_ASSERT_EQ(before & ~(armed_bit | fired_bit), 0);
    }
    // Armed, nothing fired, and gates on.
    [[nodiscard]] bool quiet() const {
        return state_.load(std::memory_order_acquire) == parked_state.load(std::memory_order_relaxed);
    }
    [[nodiscard]] bool armed() const { return (state_.load(std::memory_order_acquire) & armed_bit) != 0; }
    [[nodiscard]] bool fired() const { return (state_.load(std::memory_order_acquire) & fired_bit) != 0; }

    static IdleShared* create() { return new IdleShared(); }
    // A block no walk runs through and no input holds: never armed, never woken. A
    // gated read points at it before its gate is set up, so its idle path tests no
    // pointer.
    static const IdleShared never_armed;
    void release() {
        const std::uint32_t before = refs_.fetch_sub(1, std::memory_order_acq_rel);
        MOQ_ASSERT_GT(before, 0u);
        if (before == 1) delete this;
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
        if (!MOQ_SITE("idle.fire.mark_fired", gate)) return;
        const std::uint8_t before = state_.fetch_or(fired_bit, std::memory_order_acq_rel);
        // A second input fired it before any walk looked again (I4).
        MOQ_SOMETIMES("idle.fire.already_fired", (before & fired_bit) != 0);
        MOQ_ASSERT_EQ(before & ~(armed_bit | fired_bit), 0);
    }

    static void* clone_fn(void* data) {
        // A clone is made from a live waker, which holds a reference.
        const std::uint32_t before = static_cast<IdleShared*>(data)->refs_.fetch_add(1, std::memory_order_relaxed);
        MOQ_ASSERT_GT(before, 0u);
        return data;
    }
    static void wake_fn(void* data) { static_cast<IdleShared*>(data)->fire(); }
    static void drop_fn(void* data) { static_cast<IdleShared*>(data)->release(); }
    static constexpr kio::WakerVtable vtable{&clone_fn, &wake_fn, &drop_fn};

    std::atomic<std::uint32_t> refs_{1};
    std::atomic<std::uint8_t> state_{0};
    std::uint64_t task_serial_ = 0;  // a waiter serial whose waker will wake task_
    std::mutex mutex_;
    kio::Waker task_;  // written by the owner under the lock
};

// Constant-initialized: no guard on any path, and ready before any static reader.
inline constinit const IdleShared IdleShared::never_armed{};

}  // namespace detail

template <class K>
class Idle {
public:
    Idle() : shared_(detail::IdleShared::create()), waiter_(shared_->waker()) {}
    Idle(const Idle&) = delete;
    Idle& operator=(const Idle&) = delete;
    ~Idle() { shared_->release(); }

    // True when the read may answer Pending without walking: armed, nothing fired,
    // gates on, the same kind of walk, and the same task that parked it. Armed implies
    // no walk runs (start clears the state).
    [[nodiscard]] bool parked(const kio::Waiter& waiter, const K& key) const {
        return key_ == key && shared_->parked(waiter);
    }

    // Begins a full walk for `waiter`'s task. Returns the waiter the walk registers
    // on every input; its identity is the same for every walk of this gate.
    const kio::Waiter& start(const kio::Waiter& waiter, const K& key) {
        // Walks of one gate never nest or overlap: a gate is its reader's, polled by one
        // task at a time.
        MOQ_ASSERT(!walking_);
        walking_ = true;
        key_ = key;
        shared_->start_walk(waiter);
        // The walk registers the gate's own waiter, whose waker points at this block.
        MOQ_ASSERT(!waiter_.is_noop() && waiter_.waker().data() == shared_);
        return waiter_;
    }

    // Ends a walk: arms iff it answered Pending and nothing fired while it ran.
    void finish(bool pending) {
        MOQ_ASSERT(walking_);
        walking_ = false;
        // The walk's start cleared the state; a fire since then stays in it, so an armed
        // gate that fired during its walk still walks next time.
        const bool fired = MOQ_SITE("idle.finish.fired_during_walk", gate) && shared_->fired();
        // An input fired the gate during its own walk: it stays unarmed, the next poll walks (I3).
        MOQ_SOMETIMES("idle.finish.fired_during_own_walk", pending && fired);
        if (pending && !fired) shared_->arm();
        // Armed only by a walk that answered Pending.
        MOQ_ASSERT(pending || !shared_->armed());
    }

    // The next read walks in full.
    void disarm() { shared_->disarm(); }
    [[nodiscard]] bool walking() const { return walking_; }

    [[nodiscard]] bool armed() const { return shared_->armed(); }
    [[nodiscard]] const K& key() const { return key_; }
    // The block the idle path reads (a GatedRead keeps a pointer to it).
    [[nodiscard]] const detail::IdleShared& shared() const { return *shared_; }

private:
    detail::IdleShared* shared_;
    kio::Waiter waiter_;
    K key_{};
    bool walking_ = false;  // between start and finish
};

// Counts the walks and the gate's short answers of one reader, so a test or the
// oracle can check that a re-poll nothing woke walked nothing.
struct WalkCounter {
    std::uint64_t walks = 0;
    std::uint64_t idle_answers = 0;
};

}  // namespace moq::model
