// A clock that moves only when told to.
#pragma once

#include <mutex>
#include <optional>

#include "kio/clock.hpp"
#include "kio/timer_queue.hpp"

namespace moq::kio {

// Deterministic: tests drive time by hand.
class ManualClock final : public Clock {
public:
    [[nodiscard]] Instant now() const override;
    void wake_at(Instant at, const Waiter& waiter) override;

    // Moves time forward (never back, and no further than Instant::last()) and fires
    // what came due.
    void advance_to(Instant at);
    void advance_by(Duration by);
    [[nodiscard]] std::optional<Instant> next_deadline() const { return timers_.earliest(); }

private:
    mutable std::mutex mutex_;
    Instant now_{};
    TimerQueue timers_;
};

}  // namespace moq::kio
