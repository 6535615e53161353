#include "runtime/run_queue.hpp"

#include <mutex>

#include "runtime/runtime.hpp"
#include "runtime/task.hpp"
#include "util/assert.hpp"
#include "util/mutation.hpp"
#include "util/probe.hpp"

namespace moq::runtime {
MOQ_RUNTIME_BUILD_BEGIN
namespace detail {

RunQueue::RunQueue(Runtime& owner, WorkerHost& workers, kio::Clock& time, std::size_t limit)
    : runtime(owner), host(workers), clock(time), drainers_limit(limit), spread_delay(workers.spread_delay()) {}

void RunQueue::schedule(Task* task) MOQ_RUNTIME_NOEXCEPT {
    Call call;
    {
        std::lock_guard lock(mutex);
        MOQ_ASSERT(task->next_queued == nullptr);
        // The fault: a run queued after the stop waits in a queue no worker drains, and
        // holds its task, which holds the queue.
        if (!stopping || !MOQ_SITE("runtime.schedule.let_go_after_stop", fault)) {
            // Read only before the stop: the runtime's own clock goes with it.
            const kio::Instant now = spread_now();
            task->queued_at = now;
            if (last)
                last->next_queued = task;
            else
                first = task;
            last = task;
            ++queued;
            call = another_drainer(now);
            if (call.when != Call::none) {
                kio::sync_touched(&calls_being_made);
                calls_being_made.fetch_add(1, std::memory_order_relaxed);
            }
            task = nullptr;
        }
    }
    // A run after the stop is let go at once: no worker will take it, and the runtime
    // may be gone. The task is freed here if this was its last reference, which ends this
    // queue too if the task held its last share: nothing of either is touched after.
    if (task) {
        // A wake that began before the stop reached the queue after it (E3, E5).
        MOQ_PROBE("runtime.schedule.run_after_stop");
        task->release();
        return;
    }
    if (call.when == Call::none) return;
    // The host may be the runtime's own: its stop waits for this call to be made.
    make(call);
    kio::sync_touched(&calls_being_made);
    calls_being_made.fetch_sub(1, std::memory_order_release);
}

kio::Instant RunQueue::spread_now() const {
    // With one drainer at most there is nothing to spread, and no clock to read per run.
    const bool spreads = spread_delay > kio::Duration::zero() && drainers_limit > 1;
    return spreads ? clock.now() : kio::Instant{};
}

// One more drainer only while more runs wait than drainers drain, and, with a spread
// delay, once the oldest has waited that long; a younger backlog arms one spreading turn
// for the moment it will have.
RunQueue::Call RunQueue::another_drainer(kio::Instant now) {
    if (stopping || drainers >= drainers_limit || queued <= drainers) return {};
    const kio::Duration waited = now - first->queued_at;
    if (drainers == 0 || waited >= spread_delay) {
        // The oldest run waited the spread delay behind a drainer: another core takes part.
        MOQ_SOMETIMES("runtime.drainer.spread_to_another_core", drainers > 0);
        ++drainers;
        return {Call::now, {}};
    }
    if (spread_armed) return {};
    MOQ_PROBE("runtime.spread.turn_armed");
    spread_armed = true;
    return {Call::later, spread_delay - waited};
}

void RunQueue::make(Call call) {
    if (call.when == Call::now)
        host.run(Drainer(runtime));
    else if (call.when == Call::later && MOQ_SITE("runtime.spread.arm", notify))
        host.run_after(Drainer(runtime, Drainer::Turn::spread), call.after);
}

Task* RunQueue::take_all() {
    Task* taken = first;
    first = last = nullptr;
    queued = 0;
    return taken;
}

void release_runs(Task* first) noexcept {
    while (Task* task = first) {
        first = task->next_queued;
        task->next_queued = nullptr;
        task->release();
    }
}

}  // namespace detail
MOQ_RUNTIME_BUILD_END
}  // namespace moq::runtime
