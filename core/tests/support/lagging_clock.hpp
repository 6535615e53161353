// A clock whose time can move before its timers fire, as a system clock's timer
// thread lags real time: a read may see the new time before the wake lands.
#pragma once

#include "kio/clock.hpp"
#include "kio/timer_queue.hpp"

namespace moq::test {

class LaggingClock final : public kio::Clock {
public:
    [[nodiscard]] kio::Instant now() const override { return now_; }
    void wake_at(kio::Instant at, const kio::Waiter& waiter) override { timers_.add(at, waiter); }
    void set_now(kio::Instant at) { now_ = at; }
    void fire() { timers_.fire_until(now_); }

private:
    kio::Instant now_{};
    kio::TimerQueue timers_;
};

}  // namespace moq::test
