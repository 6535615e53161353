#include "runtime/runtime.hpp"

#include <algorithm>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "runtime/thread_pool.hpp"
#include "util/assert.hpp"
#include "util/mutation.hpp"

namespace moq::runtime {
MOQ_RUNTIME_BUILD_BEGIN

// The workers drain one run queue of the runtime's own. A queued run does not wake a
// worker of its own: at most `drainers_limit` workers drain at once, one per core the
// host has (or fewer, with fewer workers), and another is called only while more runs
// wait than workers drain and, with the host's spread delay, the oldest of them has waited
// that long. So a task that one poll wakes mostly runs on the worker that woke it, and 64
// tasks woken by one land cost one thread wake-up, not one per task and per idle worker,
// nor two cores sharing every cache line the tasks touch for a burst one core ends soon.
struct Runtime::Pool {
    Pool(WorkerHost& workers, std::size_t limit)
        : host(workers), drainers_limit(limit), spread_delay(workers.spread_delay()) {}
    ~Pool() {
        // The workers have returned: the runs still queued let go of their references.
        while (detail::Task* task = first) {
            first = task->next_queued;
            task->next_queued = nullptr;
            task->release();
        }
    }

    WorkerHost& host;
    const std::size_t drainers_limit;
    const kio::Duration spread_delay;
    kio::Mutex mutex{"runtime.pool"};  // not a core lock: no core lock or waker is ever taken under it
    detail::Task* first = nullptr;     // the run queue, oldest first; each holds its run's reference
    detail::Task* last = nullptr;
    std::size_t queued = 0;
    std::size_t drainers = 0;   // workers draining the queue, or called to
    bool spread_armed = false;  // a spreading turn is given to run_after and has not run
    bool stopping = false;      // a drainer stops at its next run
};

void Drainer::operator()() const {
    if (turn_ == Turn::spread)
        runtime_->spread();
    else
        runtime_->drain();
}

namespace {

std::size_t checked_workers(std::size_t workers) {
    if (workers == 0 || workers > Runtime::max_workers)
        throw std::invalid_argument("a runtime has 1 to " + std::to_string(Runtime::max_workers) + " workers, not " +
                                    std::to_string(workers));
    return workers;
}

}  // namespace

Runtime::Runtime(std::size_t workers)
    : workers_(checked_workers(workers)), threads_(std::make_unique<ThreadPool>(workers_)) {
    // One drainer per core at most: more would only take turns on the same cores.
    pool_ = std::make_unique<Pool>(*threads_, std::min(workers_, threads_->cores()));
    clock_ = &system_clock_.emplace();
}

Runtime::Runtime(std::size_t workers, WorkerHost& host, kio::Clock& clock)
    : workers_(checked_workers(workers)),
      pool_(std::make_unique<Pool>(host, std::min(workers_, std::max<std::size_t>(1, host.cores())))),
      clock_(&clock) {}

Runtime::~Runtime() {
    {
        std::lock_guard lock(live_mutex_);
        stopping_ = true;
    }
    {
        std::lock_guard lock(pool_->mutex);
        pool_->stopping = true;
    }
    pool_->host.stop_and_join();
    // No worker runs now. Every task still live is dropped; runs still queued let go
    // of their references with the pool.
    std::vector<detail::TaskRef> unfinished;
    {
        std::lock_guard lock(live_mutex_);
        for (detail::Task* task = live_; task; task = task->next_live) {
            task->retain();
            unfinished.emplace_back(task);
        }
    }
    // Outside the lock: dropping a body may wake other tasks, and retires this one.
    for (const detail::TaskRef& task : unfinished) task->cancel();
}

JoinHandle Runtime::start(detail::Task* task) {
    // The new task holds one reference, the live list's; one more for the handle.
    {
        std::lock_guard lock(live_mutex_);
        MOQ_ASSERT(!stopping_);
        task->next_live = live_;
        if (live_) live_->previous_live = task;
        live_ = task;
    }
    task->retain();
    JoinHandle handle{detail::TaskRef(task)};
    task->retain();  // its first run's: a task starts scheduled
    schedule(task);
    return handle;
}

void Runtime::schedule(detail::Task* task) {
    const kio::Instant now = spread_now();
    Call call;
    {
        std::lock_guard lock(pool_->mutex);
        MOQ_ASSERT(task->next_queued == nullptr);
        task->queued_at = now;
        if (pool_->last)
            pool_->last->next_queued = task;
        else
            pool_->first = task;
        pool_->last = task;
        ++pool_->queued;
        call = another_drainer(now);
    }
    make(call);
}

kio::Instant Runtime::spread_now() const {
    // With one drainer at most there is nothing to spread, and no clock to read per run.
    const bool spreads = pool_->spread_delay > kio::Duration::zero() && pool_->drainers_limit > 1;
    return spreads ? clock_->now() : kio::Instant{};
}

// Under the pool's lock. One more drainer only while more runs wait than drainers drain,
// and, with a spread delay, once the oldest has waited that long; a younger backlog arms
// one spreading turn for the moment it will have.
Runtime::Call Runtime::another_drainer(kio::Instant now) {
    if (pool_->stopping || pool_->drainers >= pool_->drainers_limit || pool_->queued <= pool_->drainers) return {};
    const kio::Duration waited = now - pool_->first->queued_at;
    if (pool_->drainers == 0 || waited >= pool_->spread_delay) {
        ++pool_->drainers;
        return {Call::now, {}};
    }
    if (pool_->spread_armed) return {};
    pool_->spread_armed = true;
    return {Call::later, pool_->spread_delay - waited};
}

void Runtime::make(Call call) {
    if (call.when == Call::now)
        pool_->host.run(Drainer(*this));
    else if (call.when == Call::later && MOQ_SITE("runtime.spread.arm", notify))
        pool_->host.run_after(Drainer(*this, Drainer::Turn::spread), call.after);
}

void Runtime::drain() {
    for (;;) {
        detail::Task* task = nullptr;
        Call call;
        {
            const kio::Instant now = spread_now();
            std::unique_lock lock(pool_->mutex);
            if (pool_->stopping || !pool_->first) {
                // Leaving under the lock that queues: a run queued after this is seen
                // with one drainer fewer, and calls one if none is left.
                if (!MOQ_SITE("runtime.drain.leave_under_lock", fault)) {
                    lock.unlock();  // the fault: a run queued now counts on this drainer
                    lock.lock();
                }
                --pool_->drainers;
                return;
            }
            task = pool_->first;
            pool_->first = task->next_queued;
            if (!pool_->first) pool_->last = nullptr;
            task->next_queued = nullptr;
            --pool_->queued;
            // The backlog behind this run may have waited long enough for another core.
            if (pool_->spread_delay > kio::Duration::zero()) call = another_drainer(now);
        }
        make(call);
        task->run();
        task->release();  // the queued run's reference
    }
}

void Runtime::spread() {
    Call call;
    {
        const kio::Instant now = clock_->now();
        std::lock_guard lock(pool_->mutex);
        pool_->spread_armed = false;
        if (pool_->stopping || pool_->drainers == 0) return;  // a run queued later calls its own
        call = another_drainer(now);
    }
    if (call.when == Call::now) {
        drain();  // this turn is the drainer the backlog called
        return;
    }
    make(call);
}

void Runtime::retire(detail::Task& task) MOQ_RUNTIME_NOEXCEPT {
    {
        std::lock_guard lock(live_mutex_);
        if (task.previous_live) task.previous_live->next_live = task.next_live;
        if (task.next_live) task.next_live->previous_live = task.previous_live;
        if (live_ == &task) live_ = task.next_live;
        task.previous_live = task.next_live = nullptr;
    }
    task.release();  // the live list's reference; the caller holds another
}

MOQ_RUNTIME_BUILD_END
}  // namespace moq::runtime
