// The simulator's clock: time moves only when the executor moves it, to the next
// deadline, when no task can run.
#pragma once

#include <optional>

#include "kio/clock.hpp"

namespace moq::sim {

class VirtualClock final : public kio::Clock {
public:
    [[nodiscard]] kio::Instant now() const override { return now_; }
    void wake_at(kio::Instant at, const kio::Waiter& waiter) override;

    [[nodiscard]] std::optional<kio::Instant> next_deadline() const { return timers_.earliest(); }
    // Moves to `at` (never back) and wakes what came due.
    void advance_to(kio::Instant at);

private:
    kio::Instant now_{};
    kio::TimerQueue timers_;
};

}  // namespace moq::sim
