#include "runtime/task.hpp"

#include "runtime/runtime.hpp"
#include "util/assert.hpp"

namespace moq::runtime::detail {

namespace {

// A waker's data pointer is the task itself, so every handle of one task will_wake every
// other (a park keeps its waiter across polls) and a clone costs one increment.
void* clone_waker(void* data) {
    static_cast<Task*>(data)->retain();
    return data;
}
void wake_waker(void* data) { static_cast<Task*>(data)->wake(); }
void drop_waker(void* data) { static_cast<Task*>(data)->release(); }

constexpr kio::WakerVtable task_waker_vtable{&clone_waker, &wake_waker, &drop_waker};

}  // namespace

void Task::release() noexcept {
    if (references_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
}

kio::Waker Task::waker() noexcept {
    retain();
    return kio::Waker(&task_waker_vtable, this);
}

void Task::wake() noexcept {
    // One read-modify-write whatever the state, so everything the waking thread did
    // before it is visible to the poll that follows: idle becomes scheduled (and only
    // this wake queues it), running becomes notified, the rest stay as they are.
    const std::uint32_t before = state_.fetch_or(TaskBits::notified, std::memory_order_acq_rel);
    if (before != 0) return;
    retain();  // the queued run's reference
    runtime_->schedule(this);
}

void Task::run() {
    std::uint32_t expected = TaskBits::notified;
    while (!state_.compare_exchange_weak(expected, TaskBits::running, std::memory_order_acq_rel,
                                         std::memory_order_acquire)) {
        if (expected & TaskBits::done) return;  // cancelled while queued
        // A queued task is scheduled and nothing else: only this run may start it.
        MOQ_ASSERT_EQ(expected, TaskBits::notified);
    }
    // The task's own waiter, kept across polls so its registrations live on: built once
    // from a waker of this task, and reused while the task lives.
    const kio::Waiter* waiter = park_.held();
    if (!waiter) waiter = &park_.hold(waker());
    bool ready = false;
    try {
        ready = poll(*waiter).is_ready();
    } catch (...) {
        finish(std::current_exception());
        return;
    }
    if (ready) {
        finish(nullptr);
        return;
    }
    expected = TaskBits::running;
    if (state_.compare_exchange_strong(expected, 0, std::memory_order_acq_rel, std::memory_order_acquire)) return;
    // Woken while it ran: back to scheduled, queued once more. Nothing else can change
    // the state of a running task (wakes only add `notified`; cancel waits for the pool).
    MOQ_ASSERT_EQ(expected, TaskBits::running | TaskBits::notified);
    state_.store(TaskBits::notified, std::memory_order_release);
    retain();
    runtime_->schedule(this);
}

void Task::cancel() noexcept {
    if (state_.exchange(TaskBits::done, std::memory_order_acq_rel) & TaskBits::done) return;
    cancelled_ = true;
    finish(nullptr);
}

void Task::finish(std::exception_ptr error) noexcept {
    state_.store(TaskBits::done, std::memory_order_release);
    error_ = std::move(error);
    // The body and the waiter go first: the waiter's waker is a reference to this task,
    // and the body's readers may hold registrations that reference it too.
    drop_body();
    park_.release();
    runtime_->retire(*this);
    finished_.store(true, std::memory_order_release);
    finished_.notify_all();
}

void Task::wait_finished() const noexcept {
    while (!finished_.load(std::memory_order_acquire)) finished_.wait(false, std::memory_order_acquire);
}

}  // namespace moq::runtime::detail
