// Time, as the core sees it: only through a Clock. A virtual clock (the simulator's,
// or ManualClock in tests) and a system clock with a timer thread implement it.
#pragma once

#include <cstdint>

#include "kio/time.hpp"
#include "kio/waiter.hpp"

namespace moq::kio {

class Clock {
public:
    virtual ~Clock() = default;
    [[nodiscard]] virtual Instant now() const = 0;
    // Wakes `waiter` once the clock reaches `at` (idempotent per waiter and instant).
    virtual void wake_at(Instant at, const Waiter& waiter) = 0;
};

}  // namespace moq::kio
