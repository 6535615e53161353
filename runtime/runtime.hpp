// The runtime: tasks made of the same poll functions the simulator runs, scheduled on a
// pool of worker threads of its own (runtime/thread_pool.hpp), with the core's SystemClock for
// time; or on the workers of a host, with the host's clock (runtime/workers.hpp). A task is polled by at most one
// worker at a time (runtime/task.hpp); its wakers are safe from any thread.
//
// Destroying the runtime stops the workers (a poll under way finishes first), then drops
// every task that has not finished, as a cancelled future is dropped: its poll function
// is destroyed and its join answers false. Its wakers may be woken from any thread at any
// time, even while or after it is destroyed: a wake that began before the stop (the
// clock's timer thread firing a deadline) finds the run queue still there, shared by the
// tasks, and its run is let go (runtime/run_queue.hpp); one that called a drainer just
// before the stop has made that call before the stop joins the workers.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <type_traits>

#include "kio/clock.hpp"
#include "kio/sync.hpp"
#include "kio/system_clock.hpp"
#include "runtime/join_handle.hpp"
#include "runtime/run_queue.hpp"
#include "runtime/task.hpp"
#include "runtime/variant.hpp"
#include "runtime/workers.hpp"

namespace moq::runtime {
MOQ_RUNTIME_BUILD_BEGIN

class Runtime {
public:
    static constexpr std::size_t max_workers = 256;

    // `workers` threads, 1 to max_workers (std::invalid_argument otherwise).
    explicit Runtime(std::size_t workers);
    // Workers run by `host`, time read from `clock`; both outlive the runtime.
    Runtime(std::size_t workers, WorkerHost& host, kio::Clock& clock);
    ~Runtime();
    Runtime(const Runtime&) = delete;
    Runtime& operator=(const Runtime&) = delete;

    // Queues a task that polls `poll(waiter)` (answering kio::Poll<kio::Done>) until
    // Ready. Safe from any thread, a worker included.
    template <class PollFunction>
    JoinHandle spawn(PollFunction poll) {
        using Body = std::decay_t<PollFunction>;
        static_assert(std::is_invocable_r_v<kio::Poll<kio::Done>, Body&, const kio::Waiter&>,
                      "a task is a poll function: (const kio::Waiter&) -> kio::Poll<kio::Done>");
        return start(new detail::TaskFor<Body>(*this, std::move(poll)));
    }

    // The clock tasks read time from, and whose timer thread wakes their deadlines.
    [[nodiscard]] kio::Clock& clock() noexcept { return *clock_; }
    [[nodiscard]] std::size_t workers() const noexcept { return workers_; }

private:
    friend class detail::Task;
    friend class detail::RunQueue;
    friend class Drainer;

    JoinHandle start(detail::Task* task);
    // A pool thread's turn at the run queue: polls queued tasks until none is left.
    void drain();
    // A spreading turn: drains if runs still wait past the spread delay.
    void spread();
    // The task is done: it leaves the list of live tasks, which lets go of it.
    void retire(detail::Task& task) MOQ_RUNTIME_NOEXCEPT;

    std::size_t workers_;
    std::unique_ptr<WorkerHost> threads_;           // the default host, a ThreadPool; none when given one
    std::optional<kio::SystemClock> system_clock_;  // the default clock; none when given one
    kio::Clock* clock_;
    std::shared_ptr<detail::RunQueue> queue_;  // shared with the tasks
    kio::Mutex live_mutex_{"runtime.live"};    // not a core lock: no core lock or waker is ever taken under it
    detail::Task* live_ = nullptr;             // tasks not done yet, each holding one reference
    bool stopping_ = false;                    // under live_mutex_: spawn after shutdown began is a bug
};

MOQ_RUNTIME_BUILD_END
}  // namespace moq::runtime
