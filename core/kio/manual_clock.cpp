#include "kio/manual_clock.hpp"

namespace moq::kio {

Instant ManualClock::now() const {
    std::lock_guard lock(mutex_);
    return now_;
}

void ManualClock::wake_at(Instant at, const Waiter& waiter) {
    {
        std::lock_guard lock(mutex_);
        if (at > now_) {
            timers_.add(at, waiter);
            return;
        }
    }
    waiter.waker().wake();  // already due: a poll racing the clock still hears it
}

void ManualClock::advance_to(Instant at) {
    {
        std::lock_guard lock(mutex_);
        if (at > now_) now_ = at;
        at = now_;
    }
    timers_.fire_until(at);
}

void ManualClock::advance_by(Duration by) { advance_to(now() + by); }

}  // namespace moq::kio
