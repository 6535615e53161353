// Keeps a waiter alive between polls so its registrations survive the poll that made
// them. Reuses the held waiter while the same task polls; a new task gets a new one.
#pragma once

#include <optional>

#include "kio/waiter.hpp"

namespace moq::kio {

class Park {
public:
    Park() = default;
    explicit Park(Waiter waiter) { held_.emplace(std::move(waiter)); }

    // A registration belongs to the handle that parked it: a copy starts empty.
    Park(const Park&) noexcept {}
    Park& operator=(const Park&) noexcept {
        held_.reset();
        return *this;
    }

    // The waiter for this poll. Call before the poll body, so an early return still
    // leaves the registrations alive.
    const Waiter& hold(const Waker& waker) {
        if (held_ && held_->waker().will_wake(waker)) return *held_;
        // Dropping the old waiter kills its entries; lists reclaim those slots.
        held_.reset();
        held_.emplace(waker);
        return *held_;
    }

    [[nodiscard]] const Waiter* held() const noexcept { return held_ ? &*held_ : nullptr; }
    void release() noexcept { held_.reset(); }

private:
    std::optional<Waiter> held_;
};

}  // namespace moq::kio
