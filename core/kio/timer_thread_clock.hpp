// A clock whose deadlines a timer thread fires: the system clock's logic over a platform
// that says how it tells time, locks, waits and runs its thread. SystemClock runs it on
// steady time and a std::thread (kio/system_clock.hpp). The simulator runs the same code
// with the thread a simulated task, time virtual, and the lock and the waits switch
// points (sim/simulated_thread_platform.hpp), so the handshake between a new deadline
// and the thread's wait is explored too.
//
// A Platform has: Mutex; Guard, a scope that holds a Mutex; CondVar, made from the
// platform, with wait(std::unique_lock<Mutex>&), wait_for(std::unique_lock<Mutex>&,
// Duration) and notify_all(); Instant now() const; start(body), which runs `body` on the
// timer thread; join(), which waits for it to return.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <utility>

#include "kio/clock.hpp"
#include "kio/timer_queue.hpp"
#include "util/mutation.hpp"
#include "util/probe.hpp"

namespace moq::kio {

template <class Platform>
class TimerThreadClock : public Clock {
public:
    template <class... Arguments>
    explicit TimerThreadClock(Arguments&&... arguments)
        : platform_(std::forward<Arguments>(arguments)...), changed_(platform_) {
        platform_.start([this] { run(); });
    }
    ~TimerThreadClock() override {
        {
            typename Platform::Guard lock(mutex_);
            stopping_ = true;
        }
        changed_.notify_all();
        platform_.join();
    }
    TimerThreadClock(const TimerThreadClock&) = delete;
    TimerThreadClock& operator=(const TimerThreadClock&) = delete;

    [[nodiscard]] Instant now() const override { return platform_.now(); }

    void wake_at(Instant at, const Waiter& waiter) override {
        timers_.add(at, waiter);
        if (MOQ_SITE("clock.wake_at.handshake", notify)) {
            // Taken so the timer thread cannot miss the new deadline between its check
            // and its wait: it holds the lock from one to the other.
            typename Platform::Guard lock(mutex_);
        }
        changed_.notify_all();
    }

    // How often the timer thread woke, for tests: a far deadline must not spin it.
    [[nodiscard]] std::uint64_t timer_turns() const { return turns_.load(std::memory_order_relaxed); }
    [[nodiscard]] Platform& platform() { return platform_; }

private:
    // The timer thread looks again at least this often; farther deadlines are slept
    // towards in steps, so no wait is ever computed past the steady clock's range.
    static constexpr Duration longest_sleep = std::chrono::hours(1);

    void run() {
        // Not a Guard: the condition variable needs a unique_lock. The wakers run while
        // it is unlocked.
        std::unique_lock lock(mutex_);
        while (!stopping_) {
            turns_.fetch_add(1, std::memory_order_relaxed);
            lock.unlock();
            // The platform's time, not the virtual now(): the thread runs while a derived
            // clock is still being built or torn down, when its vtable is not yet (or no
            // longer) the one a virtual call would read.
            timers_.fire_until(platform_.now());
            lock.lock();
            if (stopping_) {
                // The stop came while the thread fired deadlines, its lock released.
                MOQ_PROBE("clock.thread.stopped_while_firing");
                break;
            }
            // Read under the lock wake_at takes after adding, so no new deadline slips by.
            const std::optional<Instant> next = timers_.earliest();
            if (next) {
                MOQ_PROBE("clock.thread.timed_wait");
                // Measured from now with saturating arithmetic and capped: a far deadline
                // converted to a steady time point would overflow into the past and spin.
                changed_.wait_for(lock, std::min(*next - platform_.now(), longest_sleep));
            } else {
                changed_.wait(lock);
            }
        }
    }

    Platform platform_;
    TimerQueue timers_;
    typename Platform::Mutex mutex_;
    typename Platform::CondVar changed_;
    bool stopping_ = false;
    std::atomic<std::uint64_t> turns_{0};
};

}  // namespace moq::kio
