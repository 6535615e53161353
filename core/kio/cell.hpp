// A watch cell: one mutex-protected value with waiter lists for value changes, for
// closing, and for changes of the consumer count. Producers write, consumers poll.
// The last producer to go closes the cell.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <type_traits>
#include <utility>

#include "kio/core_lock.hpp"
#include "kio/poll.hpp"
#include "kio/schedule_point.hpp"
#include "kio/waiter.hpp"
#include "kio/waiter_list.hpp"
#include "util/mutation.hpp"
#include "util/probe.hpp"

namespace moq::kio {

// The answer of a predicate poll on a cell.
template <class R>
class CellPoll {
public:
    enum class State { ready, closed, pending };

    static CellPoll ready(R value) { return CellPoll(State::ready, std::move(value)); }
    static CellPoll closed() { return CellPoll(State::closed, std::nullopt); }
    static CellPoll pending() { return CellPoll(State::pending, std::nullopt); }

    [[nodiscard]] State state() const { return state_; }
    [[nodiscard]] bool is_ready() const { return state_ == State::ready; }
    [[nodiscard]] bool is_closed() const { return state_ == State::closed; }
    [[nodiscard]] bool is_pending() const { return state_ == State::pending; }
    R& value() {
        MOQ_ASSERT_EQ(static_cast<int>(state_), static_cast<int>(State::ready));
        return *value_;
    }

private:
    CellPoll(State state, std::optional<R> value) : state_(state), value_(std::move(value)) {}
    State state_;
    std::optional<R> value_;
};

namespace detail {

// Runs the wakers a change collected under the lock, once it is released. Another task
// may run first (the wake point `where`): it must find the change made.
inline void wake_unlocked(WaiterList& woken, const char* where) {
    if (woken.empty()) return;
    schedule_point(where);
    woken.wake();
}

template <class T>
struct CellState {
    template <class... Args>
    explicit CellState(Args&&... args) : value(std::forward<Args>(args)...) {}

    std::mutex mutex;
    T value;
    WaiterList value_waiters;
    WaiterList closed_waiters;
    WaiterList consumer_waiters;
    std::size_t producers = 1;
    // Changed without the lock while it stays above zero (a copy of a consumer, the drop
    // of one of several), so readers that copy and drop handles of one cell do not
    // serialise on its lock; only a change to or from zero takes it, in step with the
    // consumer waiters, who wait for exactly those.
    std::atomic<std::size_t> consumers = 0;
    bool closed = false;

    // Under the lock: close and take every list, for waking after unlock.
    struct Drained {
        WaiterList value = WaiterList::untracked();
        WaiterList closed = WaiterList::untracked();
        WaiterList consumers = WaiterList::untracked();
        void wake() {
            if (value.empty() && closed.empty() && consumers.empty()) return;
            schedule_point("wake.cell.close");
            value.wake();
            closed.wake();
            consumers.wake();
        }
    };
    Drained close_locked() {
        MOQ_ASSERT(!closed);
        closed = true;
        Drained drained{value_waiters.take(), closed_waiters.take(), consumer_waiters.take()};
        check_locked();
        return drained;
    }

    // Under the lock, what every change keeps: a closed cell holds no waiter (nobody
    // registers on it), and an open one has a producer (the last one's going closes it).
    // Integer compares only.
    void check_locked() const {
        if (closed) {
            MOQ_ASSERT(value_waiters.empty() && closed_waiters.empty() && consumer_waiters.empty());
        } else {
            MOQ_ASSERT_GT(producers, 0u);
        }
    }
};

}  // namespace detail

template <class T>
class Consumer;

template <class T>
class Producer {
public:
    template <class... Args>
    explicit Producer(std::in_place_t, Args&&... args)
        : state_(std::make_shared<detail::CellState<T>>(std::forward<Args>(args)...)) {}
    explicit Producer(T value = T()) : state_(std::make_shared<detail::CellState<T>>(std::move(value))) {}

    // A copy of a moved-from producer is moved-from too.
    Producer(const Producer& other) : state_(other.state_) {
        if (!state_) return;
        CoreLock lock(state_->mutex, cell_lock_level<T>);
        MOQ_ASSERT_GT(state_->producers, 0u);  // `other` is one
        ++state_->producers;
    }
    Producer(Producer&& other) noexcept = default;
    Producer& operator=(const Producer&) = delete;
    Producer& operator=(Producer&& other) noexcept {
        if (this != &other) {
            drop();
            state_ = std::move(other.state_);
        }
        return *this;
    }
    ~Producer() { drop(); }

    // Changes the value and wakes the value waiters. False when the cell is closed.
    template <class F>
    bool modify(F&& change) {
        WaiterList woken = WaiterList::untracked();
        {
            CoreLock lock(state_->mutex, cell_lock_level<T>);
            if (state_->closed) return false;
            std::forward<F>(change)(state_->value);
            woken = state_->value_waiters.take();
            MOQ_ASSERT(state_->value_waiters.empty());
            state_->check_locked();
            // The mutant runs the wakers under the lock, where a task polled at once
            // would take this lock again.
            if (!MOQ_SITE("cell.modify.wake_unlocked", notify)) woken.wake();
        }
        detail::wake_unlocked(woken, "wake.cell.modify");
        return true;
    }

    // Changes the value without waking anyone, for a writer that batches its wakes
    // and calls notify() once for several changes.
    template <class F>
    bool modify_quietly(F&& change) {
        CoreLock lock(state_->mutex, cell_lock_level<T>);
        if (state_->closed) return false;
        std::forward<F>(change)(state_->value);
        state_->check_locked();
        return true;
    }

    // Wakes the value waiters.
    void notify() {
        WaiterList woken = WaiterList::untracked();
        {
            CoreLock lock(state_->mutex, cell_lock_level<T>);
            woken = state_->value_waiters.take();
        }
        detail::wake_unlocked(woken, "wake.cell.notify");
    }

    // Closes the cell, waking value, closed and consumer waiters. False if already closed.
    bool close() {
        typename detail::CellState<T>::Drained woken;
        {
            CoreLock lock(state_->mutex, cell_lock_level<T>);
            if (state_->closed) return false;
            woken = state_->close_locked();
        }
        woken.wake();
        return true;
    }

    template <class F>
    auto read(F&& reader) const {
        CoreLock lock(state_->mutex, cell_lock_level<T>);
        return std::forward<F>(reader)(std::as_const(state_->value));
    }

    [[nodiscard]] bool is_closed() const {
        CoreLock lock(state_->mutex, cell_lock_level<T>);
        return state_->closed;
    }

    // Ready once the cell closes.
    Poll<Done> poll_closed(const Waiter& waiter) const {
        CoreLock lock(state_->mutex, cell_lock_level<T>);
        if (state_->closed) return Done{};
        waiter.register_on(state_->closed_waiters);
        return Poll<Done>::pending();
    }

    // Ready (true) once no consumer is left; Ready (false) if the cell closed first.
    Poll<bool> poll_unused(const Waiter& waiter) const {
        return poll_consumers(waiter, [](std::size_t count) { return count == 0; });
    }
    // Ready (true) once a consumer exists; Ready (false) if the cell closed first.
    Poll<bool> poll_used(const Waiter& waiter) const {
        return poll_consumers(waiter, [](std::size_t count) { return count != 0; });
    }

    [[nodiscard]] Consumer<T> consume() const;

private:
    template <class>
    friend class Consumer;

    template <class Want>
    Poll<bool> poll_consumers(const Waiter& waiter, Want want) const {
        CoreLock lock(state_->mutex, cell_lock_level<T>);
        if (state_->closed) return false;
        if (want(state_->consumers.load(std::memory_order_acquire))) return true;
        waiter.register_on(state_->consumer_waiters);
        return Poll<bool>::pending();
    }

    void drop() {
        release([](T&) {});
    }

public:
    // Lets go of this handle now. If it is the last producer of an open cell, `on_last`
    // changes the value under the same lock that closes the cell; `wake` false drops
    // the waiters unwoken (for a mutation site only).
    template <class F>
    void release(F&& on_last, bool wake = true) {
        if (!state_) return;
        typename detail::CellState<T>::Drained woken;
        bool closing = false;
        {
            CoreLock lock(state_->mutex, cell_lock_level<T>);
            // Decided under the lock in step with the closed flag.
            MOQ_ASSERT_GT(state_->producers, 0u);
            if (--state_->producers == 0 && !state_->closed) {
                std::forward<F>(on_last)(state_->value);
                woken = state_->close_locked();
                closing = true;
                // The last producer went with readers parked: each is woken with the end (K12, G7).
                MOQ_SOMETIMES("cell.release.last_producer_wakes_parked", !woken.value.empty() || !woken.closed.empty());
            }
            state_->check_locked();
        }
        if (closing && wake) woken.wake();
        state_.reset();
    }

private:
    std::shared_ptr<detail::CellState<T>> state_;
};

template <class T>
class Consumer {
public:
    // The count is at least one (`other`'s) and stays so: no consumer waiter can tell,
    // so no lock. A copy of a moved-from consumer is moved-from too.
    Consumer(const Consumer& other) : state_(other.state_) {
        if (!state_) return;
        const std::size_t before = state_->consumers.fetch_add(1, std::memory_order_relaxed);
        MOQ_ASSERT_GT(before, 0u);
    }
    Consumer(Consumer&& other) noexcept = default;
    Consumer& operator=(const Consumer& other) {
        if (this != &other) *this = Consumer(other);
        return *this;
    }
    Consumer& operator=(Consumer&& other) noexcept {
        if (this != &other) {
            drop();
            state_ = std::move(other.state_);
        }
        return *this;
    }
    ~Consumer() { drop(); }

    // `predicate(const T&)` returns std::optional<R>. Ready registers nothing; a
    // closed cell whose value does not satisfy the predicate answers closed; otherwise
    // the waiter is registered under the same lock and the answer is pending.
    template <class F>
    auto poll(const Waiter& waiter, F&& predicate) const {
        using Answer = std::invoke_result_t<F, const T&>;
        using R = typename Answer::value_type;
        CoreLock lock(state_->mutex, cell_lock_level<T>);
        Answer answer = std::forward<F>(predicate)(std::as_const(state_->value));
        if (answer) return CellPoll<R>::ready(std::move(*answer));
        if (state_->closed) return CellPoll<R>::closed();
        waiter.register_on(state_->value_waiters);
        // Registered under the lock the check ran under: the next change wakes it.
        MOQ_ASSERT(waiter.is_noop() || !state_->value_waiters.empty());
        return CellPoll<R>::pending();
    }

    // Reads the value and registers for its next change in one locked step.
    template <class F>
    auto read_and_watch(const Waiter& waiter, F&& reader) const {
        CoreLock lock(state_->mutex, cell_lock_level<T>);
        if (!state_->closed) waiter.register_on(state_->value_waiters);
        return std::forward<F>(reader)(std::as_const(state_->value));
    }

    // The same, with whether the cell is closed, read under that one lock:
    // `reader(value, closed)`.
    template <class F>
    auto read_and_watch_closed(const Waiter& waiter, F&& reader) const {
        CoreLock lock(state_->mutex, cell_lock_level<T>);
        if (!state_->closed) waiter.register_on(state_->value_waiters);
        return std::forward<F>(reader)(std::as_const(state_->value), state_->closed);
    }

    template <class F>
    auto read(F&& reader) const {
        CoreLock lock(state_->mutex, cell_lock_level<T>);
        return std::forward<F>(reader)(std::as_const(state_->value));
    }

    Poll<Done> poll_closed(const Waiter& waiter) const {
        CoreLock lock(state_->mutex, cell_lock_level<T>);
        if (state_->closed) return Done{};
        waiter.register_on(state_->closed_waiters);
        return Poll<Done>::pending();
    }

    [[nodiscard]] bool is_closed() const {
        CoreLock lock(state_->mutex, cell_lock_level<T>);
        return state_->closed;
    }

private:
    template <class>
    friend class Producer;

    explicit Consumer(std::shared_ptr<detail::CellState<T>> state) : state_(std::move(state)) {
        WaiterList woken = WaiterList::untracked();
        {
            CoreLock lock(state_->mutex, cell_lock_level<T>);
            const std::size_t before = state_->consumers.fetch_add(1, std::memory_order_acq_rel);
            // Only a change from zero wakes, taken under the lock the waiters registered under.
            if (before == 0) woken = state_->consumer_waiters.take();
            MOQ_ASSERT(before != 0 || state_->consumer_waiters.empty());
        }
        detail::wake_unlocked(woken, "wake.cell.consumers");
    }

    void drop() {
        if (!state_) return;
        const std::size_t before = state_->consumers.fetch_sub(1, std::memory_order_acq_rel);
        MOQ_ASSERT_GT(before, 0u);
        // Others remain: no consumer waiter can tell.
        if (before > 1) {
            state_.reset();
            return;
        }
        WaiterList woken = WaiterList::untracked();
        {
            // A waiter that read a count of one registered before this lock is taken,
            // so it is in the list; a consume since may have raised the count again.
            CoreLock lock(state_->mutex, cell_lock_level<T>);
            if (state_->consumers.load(std::memory_order_acquire) == 0) woken = state_->consumer_waiters.take();
        }
        detail::wake_unlocked(woken, "wake.cell.consumers");
        state_.reset();
    }

    std::shared_ptr<detail::CellState<T>> state_;
};

template <class T>
Consumer<T> Producer<T>::consume() const {
    return Consumer<T>(state_);
}

}  // namespace moq::kio
