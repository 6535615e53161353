#include "kio/system_clock.hpp"

#include <algorithm>

#include "kio/core_lock.hpp"

namespace moq::kio {

namespace {
// The timer thread looks again at least this often; farther deadlines are slept towards
// in steps, so no wait is ever computed past the steady clock's range.
constexpr Duration longest_sleep = std::chrono::hours(1);
}  // namespace

SystemClock::SystemClock() : start_(std::chrono::steady_clock::now()), thread_([this] { run(); }) {}

SystemClock::~SystemClock() {
    {
        CoreLock lock(mutex_, LockLevel::clock);
        stopping_ = true;
    }
    changed_.notify_all();
    thread_.join();
}

Instant SystemClock::now() const {
    return Instant{std::chrono::duration_cast<Duration>(std::chrono::steady_clock::now() - start_)};
}

void SystemClock::wake_at(Instant at, const Waiter& waiter) {
    timers_.add(at, waiter);
    {
        // Taken so the timer thread cannot miss the new deadline between its check
        // and its wait.
        CoreLock lock(mutex_, LockLevel::clock);
    }
    changed_.notify_all();
}

void SystemClock::run() {
    // Not a CoreLock: the condition variable needs a unique_lock. The wakers run while
    // it is unlocked.
    std::unique_lock lock(mutex_);
    while (!stopping_) {
        turns_.fetch_add(1, std::memory_order_relaxed);
        lock.unlock();
        timers_.fire_until(now());
        lock.lock();
        if (stopping_) break;
        // Read under the lock wake_at takes after adding, so no new deadline slips by.
        const std::optional<Instant> next = timers_.earliest();
        if (next) {
            // Measured from now with saturating arithmetic and capped: a far deadline
            // converted to a steady time point would overflow into the past and spin.
            changed_.wait_for(lock, std::min(*next - now(), longest_sleep));
        } else {
            changed_.wait(lock);
        }
    }
}

}  // namespace moq::kio
