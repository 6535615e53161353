// Time, as the core sees it: only through a Clock. A virtual clock (the simulator's,
// or ManualClock in tests) and a system clock with a timer thread implement it.
#pragma once

#include <chrono>
#include <compare>
#include <cstdint>

#include "kio/waiter.hpp"

namespace moq::kio {

using Duration = std::chrono::nanoseconds;

// A point on a clock's own time line, measured from that clock's start.
struct Instant {
    Duration since_start{0};

    friend auto operator<=>(const Instant&, const Instant&) = default;
    friend Instant operator+(Instant at, Duration by) { return Instant{at.since_start + by}; }
    friend Duration operator-(Instant later, Instant earlier) {
        return later.since_start - earlier.since_start;
    }
};

class Clock {
public:
    virtual ~Clock() = default;
    [[nodiscard]] virtual Instant now() const = 0;
    // Wakes `waiter` once the clock reaches `at` (idempotent per waiter and instant).
    virtual void wake_at(Instant at, const Waiter& waiter) = 0;
};

}  // namespace moq::kio
