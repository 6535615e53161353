// Time, as the core sees it: only through a Clock. A virtual clock (the simulator's,
// or ManualClock in tests) and a system clock with a timer thread implement it.
#pragma once

#include <chrono>
#include <compare>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>

#include "kio/poll.hpp"
#include "kio/waiter.hpp"
#include "kio/waiter_list.hpp"

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

// Waiters keyed by the instant they wait for. Shared by the clock implementations.
class TimerQueue {
public:
    void add(Instant at, const Waiter& waiter);
    // Wakes, outside the lock, every waiter whose instant is at or before `now`.
    void fire_until(Instant now);
    [[nodiscard]] std::optional<Instant> earliest() const;
    // Registrations still waiting, live or dead.
    [[nodiscard]] std::size_t pending() const;

private:
    mutable std::mutex mutex_;
    std::map<Instant, WaiterList> lists_;
};

// A clock that moves only when told to. Deterministic; the simulator builds on it.
class ManualClock final : public Clock {
public:
    [[nodiscard]] Instant now() const override;
    void wake_at(Instant at, const Waiter& waiter) override;

    // Moves time forward (never back) and fires what came due.
    void advance_to(Instant at);
    void advance_by(Duration by);
    [[nodiscard]] std::optional<Instant> next_deadline() const { return timers_.earliest(); }

private:
    mutable std::mutex mutex_;
    Instant now_{};
    TimerQueue timers_;
};

// A point in time a poll waits for. Disarmed, it answers Pending without registering:
// only the poller can arm it, and the poller is the one polling.
class Deadline {
public:
    explicit Deadline(Clock& clock) : clock_(&clock) {}

    // Re-setting the same instant is a no-op, so a loop may recompute it every turn.
    void set(std::optional<Instant> at) { at_ = at; }
    void after(Duration delay) { at_ = clock_->now() + delay; }
    void disarm() { at_.reset(); }
    [[nodiscard]] std::optional<Instant> at() const { return at_; }

    Poll<Done> poll(const Waiter& waiter) const;

private:
    Clock* clock_;
    std::optional<Instant> at_;
};

}  // namespace moq::kio
