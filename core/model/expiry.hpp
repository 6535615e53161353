// Whether a group has gone stale for its reader. A policy asked `is_expired` that
// answers false must register the waiter on everything that could flip the answer.
#pragma once

#include <memory>
#include <optional>

#include "kio/clock.hpp"
#include "kio/waiter.hpp"

namespace moq::model {

class Expiry {
public:
    virtual ~Expiry() = default;
    // `budget` is the reader's current budget when it has one (from its preferences);
    // nullopt means the policy's own.
    virtual bool is_expired(std::optional<kio::Duration> budget, const kio::Waiter& waiter) = 0;
    // When the group goes stale under `budget`, if that is known.
    [[nodiscard]] virtual std::optional<kio::Instant> deadline(std::optional<kio::Duration> budget) const = 0;
};

// Stale once the clock passes the group's start plus the budget.
class DeadlineExpiry final : public Expiry {
public:
    DeadlineExpiry(kio::Clock& clock, kio::Instant start, kio::Duration budget)
        : clock_(&clock), start_(start), budget_(budget) {}

    bool is_expired(std::optional<kio::Duration> budget, const kio::Waiter& waiter) override {
        const kio::Instant at = *deadline(budget);
        if (clock_->now() >= at) return true;
        clock_->wake_at(at, waiter);
        return false;
    }

    [[nodiscard]] std::optional<kio::Instant> deadline(std::optional<kio::Duration> budget) const override {
        return start_ + budget.value_or(budget_);
    }

private:
    kio::Clock* clock_;
    kio::Instant start_;
    kio::Duration budget_;
};

}  // namespace moq::model
