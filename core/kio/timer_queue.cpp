#include "kio/timer_queue.hpp"

#include <vector>

#include "kio/core_lock.hpp"
#include "kio/schedule_point.hpp"
#include "util/assert.hpp"
#include "util/mutation.hpp"
#include "util/probe.hpp"

namespace moq::kio {

void TimerQueue::add(Instant at, const Waiter& waiter) {
    // Never comes: a timer kept for it would only draw a clock that jumps to its next
    // deadline to the end of time.
    if (at >= Instant::never()) return;
    CoreLock lock(mutex_, LockLevel::timers);
    WaiterList& list = lists_[at];
    waiter.register_on(list);
    // Registered under the lock fire_until takes the list under.
    MOQ_ASSERT(waiter.is_noop() || !list.empty());
}

void TimerQueue::fire_until(Instant now) {
    std::vector<WaiterList> due;
    {
        CoreLock lock(mutex_, LockLevel::timers);
        // Due means at or before `now`: a deadline equal to now fires on this move.
        auto end = MOQ_SITE("timers.fire.due_now", notify) ? lists_.upper_bound(now) : lists_.lower_bound(now);
        for (auto it = lists_.begin(); it != end; ++it) {
            // Two waiters due at one instant: one list, and one firing wakes both (K15).
            MOQ_SOMETIMES("timers.fire.instant_shared", it->second.size() > 1);
            due.push_back(it->second.take());
        }
        lists_.erase(lists_.begin(), end);
        // Nothing left lies before `now`: every list that was due is taken out.
        MOQ_ASSERT(lists_.empty() || lists_.begin()->first >= now);
    }
    if (due.empty()) return;
    schedule_point("wake.timers");
    for (WaiterList& list : due) list.wake();
}

std::optional<Instant> TimerQueue::earliest() const {
    CoreLock lock(mutex_, LockLevel::timers);
    if (lists_.empty()) return std::nullopt;
    return lists_.begin()->first;
}

std::size_t TimerQueue::pending() const {
    CoreLock lock(mutex_, LockLevel::timers);
    std::size_t count = 0;
    for (const auto& [at, list] : lists_) count += list.size();
    return count;
}

}  // namespace moq::kio
