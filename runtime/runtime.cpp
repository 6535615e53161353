#include "runtime/runtime.hpp"

#include <algorithm>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>

#include "util/assert.hpp"
#include "util/mutation.hpp"

namespace moq::runtime {
MOQ_RUNTIME_BUILD_BEGIN

// The default host: Boost.Asio's thread pool, one thread a worker, as many drainers at
// once as the machine has cores.
class Runtime::Threads final : public WorkerHost {
public:
    explicit Threads(std::size_t workers) : threads_(workers) {}
    [[nodiscard]] std::size_t cores() const override { return std::max(1u, std::thread::hardware_concurrency()); }
    void run(Drainer drainer) override { boost::asio::post(threads_, drainer); }
    void stop_and_join() override {
        threads_.stop();
        threads_.join();
    }

private:
    boost::asio::thread_pool threads_;
};

// The workers drain one run queue of the runtime's own. A queued run does not wake a
// worker of its own: at most `drainers_limit` workers drain at once, one per core the
// host has (or fewer, with fewer workers), and another is called only while more runs
// wait than workers drain. So a task that one poll wakes mostly runs on the worker that
// woke it, and 64 tasks woken by one land cost one or two thread wake-ups, not one per
// task and per idle worker: on a machine with fewer cores than workers the spare threads
// would only take turns on the same cores.
struct Runtime::Pool {
    Pool(WorkerHost& workers, std::size_t limit) : host(workers), drainers_limit(limit) {}
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
    kio::Mutex mutex{"runtime.pool"};  // not a core lock: no core lock or waker is ever taken under it
    detail::Task* first = nullptr;     // the run queue, oldest first; each holds its run's reference
    detail::Task* last = nullptr;
    std::size_t queued = 0;
    std::size_t drainers = 0;  // workers draining the queue, or called to
    bool stopping = false;     // a drainer stops at its next run
};

void Drainer::operator()() const { runtime_->drain(); }

namespace {

std::size_t checked_workers(std::size_t workers) {
    if (workers == 0 || workers > Runtime::max_workers)
        throw std::invalid_argument("a runtime has 1 to " + std::to_string(Runtime::max_workers) + " workers, not " +
                                    std::to_string(workers));
    return workers;
}

}  // namespace

Runtime::Runtime(std::size_t workers)
    : workers_(checked_workers(workers)), threads_(std::make_unique<Threads>(workers_)) {
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
    bool call_drainer = false;
    {
        std::lock_guard lock(pool_->mutex);
        MOQ_ASSERT(task->next_queued == nullptr);
        if (pool_->last)
            pool_->last->next_queued = task;
        else
            pool_->first = task;
        pool_->last = task;
        ++pool_->queued;
        // One more thread only while more runs wait than threads drain.
        if (pool_->drainers < pool_->drainers_limit && pool_->queued > pool_->drainers) {
            ++pool_->drainers;
            call_drainer = true;
        }
    }
    if (call_drainer) pool_->host.run(Drainer(*this));
}

void Runtime::drain() {
    for (;;) {
        detail::Task* task = nullptr;
        {
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
        }
        task->run();
        task->release();  // the queued run's reference
    }
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
