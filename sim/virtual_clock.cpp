#include "sim/virtual_clock.hpp"

namespace moq::sim {

void VirtualClock::wake_at(kio::Instant at, const kio::Waiter& waiter) {
    if (at <= now_) {
        waiter.waker().wake();  // already due
        return;
    }
    timers_.add(at, waiter);
}

void VirtualClock::advance_to(kio::Instant at) {
    if (at > now_) now_ = at;
    timers_.fire_until(now_);
}

}  // namespace moq::sim
