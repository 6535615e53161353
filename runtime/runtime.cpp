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
#include "util/probe.hpp"

namespace moq::runtime {
MOQ_RUNTIME_BUILD_BEGIN

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

// One drainer per core at most: more would only take turns on the same cores.
Runtime::Runtime(std::size_t workers)
    : workers_(checked_workers(workers)),
      threads_(std::make_unique<ThreadPool>(workers_)),
      clock_(&system_clock_.emplace()),
      queue_(std::make_shared<detail::RunQueue>(*this, *threads_, *clock_, std::min(workers_, threads_->cores()))) {}

Runtime::Runtime(std::size_t workers, WorkerHost& host, kio::Clock& clock)
    : workers_(checked_workers(workers)),
      clock_(&clock),
      queue_(std::make_shared<detail::RunQueue>(*this, host, clock,
                                                std::min(workers_, std::max<std::size_t>(1, host.cores())))) {}

Runtime::~Runtime() {
    {
        std::lock_guard lock(live_mutex_);
        stopping_ = true;
    }
    detail::Task* queued = nullptr;
    {
        std::lock_guard lock(queue_->mutex);
        queue_->stopping = true;
    }
    // A wake from another thread may have decided a call of the host before the stop and
    // not made it yet: the host (and its join) must see that call first. None is decided
    // after the stop, so the count only falls from here.
    for (;;) {
        kio::sync_touched(&queue_->calls_being_made);
        if (queue_->calls_being_made.load(std::memory_order_acquire) == 0) break;
        MOQ_PROBE("runtime.stop.waits_for_call_being_made");
        kio::sync_yield();
    }
    queue_->host.stop_and_join();
    {
        // No worker runs now, and no run is queued any more: the runs still queued let go.
        std::lock_guard lock(queue_->mutex);
        queued = queue_->take_all();
    }
    // Runs still queued at the stop are let go; their tasks are dropped below (E5).
    MOQ_SOMETIMES("runtime.stop.queued_runs_let_go", queued != nullptr);
    detail::release_runs(queued);
    // Every task still live is dropped.
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
    queue_->schedule(task);
    return handle;
}

void Runtime::drain() {
    detail::RunQueue& queue = *queue_;
    for (;;) {
        detail::Task* task = nullptr;
        detail::RunQueue::Call call;
        {
            const kio::Instant now = queue.spread_now();
            std::unique_lock lock(queue.mutex);
            if (queue.stopping || !queue.first) {
                // Leaving under the lock that queues: a run queued after this is seen
                // with one drainer fewer, and calls one if none is left.
                if (!MOQ_SITE("runtime.drain.leave_under_lock", fault)) {
                    lock.unlock();  // the fault: a run queued now counts on this drainer
                    lock.lock();
                }
                --queue.drainers;
                return;
            }
            task = queue.first;
            queue.first = task->next_queued;
            if (!queue.first) queue.last = nullptr;
            task->next_queued = nullptr;
            --queue.queued;
            // The backlog behind this run may have waited long enough for another core.
            if (queue.spread_delay > kio::Duration::zero()) call = queue.another_drainer(now);
        }
        queue.make(call);
        task->run();
        task->release();  // the queued run's reference
    }
}

void Runtime::spread() {
    detail::RunQueue& queue = *queue_;
    detail::RunQueue::Call call;
    {
        const kio::Instant now = clock_->now();
        std::lock_guard lock(queue.mutex);
        queue.spread_armed = false;
        if (queue.stopping || queue.drainers == 0) return;  // a run queued later calls its own
        call = queue.another_drainer(now);
    }
    if (call.when == detail::RunQueue::Call::now) {
        drain();  // this turn is the drainer the backlog called
        return;
    }
    queue.make(call);
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
