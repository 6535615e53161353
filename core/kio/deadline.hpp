// A point in time a poll waits for.
#pragma once

#include <optional>

#include "kio/clock.hpp"
#include "kio/poll.hpp"
#include "kio/waiter.hpp"

namespace moq::kio {

// Disarmed, it answers Pending without registering: only the poller can arm it, and
// the poller is the one polling.
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
