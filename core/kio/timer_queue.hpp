// Waiters keyed by the instant they wait for; the clocks keep their deadlines in one.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <optional>

#include "kio/clock.hpp"
#include "kio/waiter.hpp"
#include "kio/waiter_list.hpp"

namespace moq::kio {

class TimerQueue {
public:
    // Keeps nothing for Instant::never(): it never fires.
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

}  // namespace moq::kio
