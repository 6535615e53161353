#include "runtime/runtime.hpp"

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <boost/asio/defer.hpp>
#include <boost/asio/thread_pool.hpp>

#include "util/assert.hpp"

namespace moq::runtime {

struct Runtime::Pool {
    explicit Pool(std::size_t workers) : threads(workers) {}
    boost::asio::thread_pool threads;
};

namespace {

// One queued run of a task: the worker that picks it polls the task once.
struct Run {
    detail::TaskRef task;
    void operator()() const { task->run(); }
};

std::size_t checked_workers(std::size_t workers) {
    if (workers == 0 || workers > Runtime::max_workers)
        throw std::invalid_argument("a runtime has 1 to " + std::to_string(Runtime::max_workers) + " workers, not " +
                                    std::to_string(workers));
    return workers;
}

}  // namespace

Runtime::Runtime(std::size_t workers) : workers_(checked_workers(workers)), pool_(std::make_unique<Pool>(workers_)) {}

Runtime::~Runtime() {
    {
        std::lock_guard lock(live_mutex_);
        stopping_ = true;
    }
    pool_->threads.stop();
    pool_->threads.join();
    // No worker runs now. Every task still live is dropped; runs still queued are
    // destroyed with the pool, letting go of their references.
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
    // Deferred: a run queued by a worker (a task woken by another's poll) waits in that
    // worker's own queue until its poll returns, then joins the shared queue, and a
    // worker that takes a run while more wait wakes one more worker. A post would signal
    // a sleeping worker for every wake: 64 viewers woken by one land would cost 64
    // thread wake-ups. From any other thread it is a plain post.
    boost::asio::defer(pool_->threads, Run{detail::TaskRef(task)});
}

void Runtime::retire(detail::Task& task) noexcept {
    {
        std::lock_guard lock(live_mutex_);
        if (task.previous_live) task.previous_live->next_live = task.next_live;
        if (task.next_live) task.next_live->previous_live = task.previous_live;
        if (live_ == &task) live_ = task.next_live;
        task.previous_live = task.next_live = nullptr;
    }
    task.release();  // the live list's reference; the caller holds another
}

}  // namespace moq::runtime
