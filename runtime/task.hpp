// A task of the runtime: a poll function and the atomic state that decides which worker
// polls it and when. A wake on an idle task schedules it once; a wake while it is
// scheduled changes nothing; a wake while it runs marks it notified, so the worker
// schedules it again once its poll answers Pending. So a task is polled by at most one
// worker at a time, and a wake is never lost between a Pending answer and parking.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <utility>

#include "kio/park.hpp"
#include "kio/poll.hpp"
#include "kio/sync.hpp"
#include "kio/time.hpp"
#include "kio/waiter.hpp"
#include "kio/waker.hpp"
#include "runtime/variant.hpp"

namespace moq::runtime {
MOQ_RUNTIME_BUILD_BEGIN

class Runtime;

namespace detail {

class RunQueue;

// The state word. idle is 0; scheduled is `notified` alone (queued, not running);
// running is `running`; a wake during a poll adds `notified`; `done` is final.
struct TaskBits {
    static constexpr std::uint32_t running = 1;
    static constexpr std::uint32_t notified = 2;
    static constexpr std::uint32_t done = 4;
};

class Task {
public:
    Task(const Task&) = delete;
    Task& operator=(const Task&) = delete;

    // One reference per waker handle, per queued run, per join handle, and one the
    // runtime holds until the task is done.
#if MOQ_SYNC_POINTS
    void retain() noexcept;
#else
    void retain() noexcept { references_.fetch_add(1, std::memory_order_relaxed); }
#endif
    void release() noexcept;

    // From any thread, never under a core lock (the waker asserts it).
    void wake() MOQ_RUNTIME_NOEXCEPT;
    // A worker's turn: polls once, then parks, schedules again or ends the task.
    void run();
    // Ends a task that has not finished, dropping its poll function (the runtime shuts
    // down with it parked or queued). Wakes after this change nothing.
    void cancel() MOQ_RUNTIME_NOEXCEPT;

    [[nodiscard]] bool finished() const MOQ_RUNTIME_NOEXCEPT { return finished_.load(std::memory_order_acquire); }
    // Blocks until the task is done (its poll answered Ready, threw, or it was cancelled).
    void wait_finished() const MOQ_RUNTIME_NOEXCEPT;
    // What its poll threw, if it threw; the join rethrows it.
    [[nodiscard]] std::exception_ptr error() const noexcept { return error_; }
    [[nodiscard]] bool cancelled() const noexcept { return cancelled_; }

    // A new waker handle to this task (one more reference).
    [[nodiscard]] kio::Waker waker() noexcept;

    // The runtime's list of tasks not yet done, linked through the tasks themselves.
    Task* previous_live = nullptr;
    Task* next_live = nullptr;
    // The runtime's run queue, linked through the tasks: a task is queued at most once at
    // a time (only the wake or run that makes it scheduled queues it).
    Task* next_queued = nullptr;
    kio::Instant queued_at{};  // when its run was queued, under the run queue's lock

protected:
    explicit Task(Runtime& runtime) noexcept;
    virtual ~Task() = default;

    virtual kio::Poll<kio::Done> poll(const kio::Waiter& waiter) = 0;
    // Destroys the poll function and what it owns. Called once, by the worker that saw
    // Ready or by cancel, never while a poll runs.
    virtual void drop_body() noexcept = 0;

private:
    // The task is done: drops the body and the held waiter, wakes the joiners.
    void finish(std::exception_ptr error) MOQ_RUNTIME_NOEXCEPT;

    Runtime* runtime_;
    // A share of the run queue, which a wake reaches even once the runtime is gone.
    std::shared_ptr<RunQueue> queue_;
    // Starts scheduled: spawn queues its first run.
    kio::Atomic<std::uint32_t> state_{"task.state", TaskBits::notified};
    // A plain atomic even in a simulated build: wakers are cloned and dropped under the
    // core's locks, where no task may switch.
    std::atomic<std::uint32_t> references_{1};
    kio::Atomic<bool> finished_{"task.finished", false};
    // Touched only by the worker polling the task (the state word orders the workers).
    kio::Park park_;
    std::exception_ptr error_;
    bool cancelled_ = false;
#if MOQ_SYNC_POINTS
    bool released_ = false;  // its count reached zero once: it is kept, not deleted
    friend std::size_t free_released_tasks() noexcept;
#endif
};

#if MOQ_SYNC_POINTS
// Simulated runs keep a task whose count reached zero until the case ends, so a use
// after the last release fails the count's assertion instead of reading freed memory.
// Tasks made and not yet released to zero, in this process.
[[nodiscard]] std::size_t unreleased_tasks() noexcept;
// Retains and releases of a task whose count was already zero, since the last free.
[[nodiscard]] std::size_t uses_at_zero_count() noexcept;
// Deletes the tasks kept since their last release, and sets the count of uses at zero
// back; returns how many tasks it deleted. Their poll functions are gone, so nothing of
// the case that made them is touched.
std::size_t free_released_tasks() noexcept;
// Forgets the tasks kept since their last release without deleting them (the run that
// made them was abandoned with its fibers, which may still point at them), and sets the
// count of uses at zero back.
void abandon_released_tasks() noexcept;
#endif

// A task whose poll function is a `PollFunction`: a callable (const kio::Waiter&) -> Poll<Done>.
template <class PollFunction>
class TaskFor final : public Task {
public:
    TaskFor(Runtime& runtime, PollFunction poll) : Task(runtime), body_(std::move(poll)) {}

private:
    kio::Poll<kio::Done> poll(const kio::Waiter& waiter) override { return (*body_)(waiter); }
    void drop_body() noexcept override { body_.reset(); }

    std::optional<PollFunction> body_;
};

// An owned reference to a task.
class TaskRef {
public:
    TaskRef() noexcept = default;
    // Adopts one reference.
    explicit TaskRef(Task* task) noexcept : task_(task) {}
    TaskRef(const TaskRef& other) noexcept : task_(other.task_) {
        if (task_) task_->retain();
    }
    TaskRef(TaskRef&& other) noexcept : task_(std::exchange(other.task_, nullptr)) {}
    TaskRef& operator=(TaskRef other) noexcept {
        std::swap(task_, other.task_);
        return *this;
    }
    ~TaskRef() {
        if (task_) task_->release();
    }

    Task* operator->() const noexcept { return task_; }
    Task& operator*() const noexcept { return *task_; }
    explicit operator bool() const noexcept { return task_ != nullptr; }
    [[nodiscard]] Task* get() const noexcept { return task_; }

private:
    Task* task_ = nullptr;
};

}  // namespace detail

MOQ_RUNTIME_BUILD_END
}  // namespace moq::runtime
