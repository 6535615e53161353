// The runtime's run queue and the policy that calls its drainers. The workers drain one
// queue of the runtime's own. A queued run does not wake a worker of its own: at most
// `drainers_limit` workers drain at once, one per core the host has (or fewer, with fewer
// workers), and another is called only while more runs wait than workers drain and, with
// the host's spread delay, the oldest of them has waited that long. So a task that one
// poll wakes mostly runs on the worker that woke it, and 64 tasks woken by one land cost
// one thread wake-up, not one per task and per idle worker, nor two cores sharing every
// cache line the tasks touch for a burst one core ends soon.
//
// Shared by the runtime and its tasks, so a wake that began before the runtime stopped
// (from the clock's timer thread, which outlives it) still finds the queue when it gets
// there: a run queued once the runtime stopped is let go at once.
#pragma once

#include <atomic>
#include <cstddef>

#include "kio/clock.hpp"
#include "kio/sync.hpp"
#include "kio/time.hpp"
#include "runtime/variant.hpp"
#include "runtime/workers.hpp"

namespace moq::runtime {
MOQ_RUNTIME_BUILD_BEGIN

class Runtime;

namespace detail {

class Task;

class RunQueue {
public:
    RunQueue(Runtime& runtime, WorkerHost& host, kio::Clock& clock, std::size_t drainers_limit);
    // Touches no task: the runtime's stop released the queued runs, and a run queued
    // later holds its task, which holds a share of the queue, so no queue with runs in it
    // is destroyed.
    ~RunQueue() = default;
    RunQueue(const RunQueue&) = delete;
    RunQueue& operator=(const RunQueue&) = delete;

    // Queues one run of `task`, adopting the reference it is given. From any thread.
    void schedule(Task* task) MOQ_RUNTIME_NOEXCEPT;

    // What a change to the queue asks of the host: nothing, a drainer now, or a spreading
    // turn after a while.
    struct Call {
        enum When { none, now, later } when = none;
        kio::Duration after{};
    };
    // The clock's time when runs spread after a delay (the decisions read it); otherwise
    // no time at all.
    [[nodiscard]] kio::Instant spread_now() const;
    // Under the lock: whether the queue calls one more drainer, now or later.
    Call another_drainer(kio::Instant now);
    void make(Call call);
    // Under the lock: takes every queued run out; the caller releases them.
    Task* take_all();

    Runtime& runtime;
    WorkerHost& host;
    kio::Clock& clock;
    const std::size_t drainers_limit;
    const kio::Duration spread_delay;
    kio::Mutex mutex{"runtime.pool"};  // not a core lock: no core lock or waker is ever taken under it
    Task* first = nullptr;             // the queue, oldest first; each holds its run's reference
    Task* last = nullptr;
    std::size_t queued = 0;
    std::size_t drainers = 0;   // workers draining the queue, or called to
    bool spread_armed = false;  // a spreading turn is given to run_after and has not run
    bool stopping = false;      // a drainer stops at its next run; no run is queued any more
    // Calls of the host that schedule decided and has not made yet: the runtime's stop
    // waits for them, since the host may go with the runtime. Counted up under the lock
    // before the stop only; a plain atomic, so no switch point is added in a simulated run
    // (its uses touch it, for the sleep sets, and the stop's wait yields: kio::sync_yield).
    std::atomic<std::size_t> calls_being_made{0};
};

// Releases the queued runs of a list taken by take_all, outside the queue's lock.
void release_runs(Task* first) noexcept;

}  // namespace detail

MOQ_RUNTIME_BUILD_END
}  // namespace moq::runtime
