#include "kio/manual_clock.hpp"

#include "kio/core_lock.hpp"
#include "util/assert.hpp"

namespace moq::kio {

Instant ManualClock::now() const {
    CoreLock lock(mutex_, LockLevel::clock);
    return now_;
}

void ManualClock::wake_at(Instant at, const Waiter& waiter) {
    {
        CoreLock lock(mutex_, LockLevel::clock);
        if (at > now_) {
            timers_.add(at, waiter);
            return;
        }
    }
    waiter.waker().wake();  // already due: a poll racing the clock still hears it
}

void ManualClock::advance_to(Instant at) {
    {
        CoreLock lock(mutex_, LockLevel::clock);
        // Never is never reached: a deadline at it stays Pending however far time goes.
        if (at > Instant::last()) at = Instant::last();
        const Instant before = now_;
        if (at > now_) now_ = at;
        at = now_;
        // Time never goes back.
        MOQ_ASSERT(now_ >= before);
        MOQ_ASSERT_LT(now_.since_start.count(), Instant::never().since_start.count());
    }
    timers_.fire_until(at);
}

void ManualClock::advance_by(Duration by) { advance_to(now() + by); }

}  // namespace moq::kio
