#include "runtime/task.hpp"

#include <vector>

#include "runtime/runtime.hpp"
#include "util/assert.hpp"
#include "util/mutation.hpp"
#include "util/probe.hpp"

namespace moq::runtime {
MOQ_RUNTIME_BUILD_BEGIN
namespace detail {

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

#if MOQ_SYNC_POINTS
// A simulated run is one thread: plain counts and a plain list.
std::size_t made_tasks = 0;
std::vector<Task*> released_tasks;
std::size_t zero_count_uses = 0;

// A count at zero means the task is gone: a reference was taken or dropped once too
// often. A simulated run counts the slip for its suite to report (these are noexcept
// paths, destructors among them, where an exception would end the process). The build
// that ships pays nothing for it: a count is one atomic operation there, as ever.
bool count_was_zero(std::uint32_t before) noexcept {
    if (before != 0) [[likely]]
        return false;
    ++zero_count_uses;
    return true;
}
#endif

}  // namespace

Task::Task(Runtime& runtime) noexcept : runtime_(&runtime), queue_(runtime.queue_) {
#if MOQ_SYNC_POINTS
    ++made_tasks;
#endif
}

#if MOQ_SYNC_POINTS
// The count is a plain atomic, touched under core locks too: no switch here, but the
// step touched this task.
// Its orders are reported (no switch either), so the last release can be checked to
// happen after every use of the count.
void Task::retain() noexcept {
    kio::sync_touched(this);
    constexpr std::memory_order order = std::memory_order_relaxed;
    count_was_zero(references_.fetch_add(1, order));
    kio::sync_ordered(&references_, kio::SyncAccess::read_modify_write, order);
}

void Task::release() noexcept {
    kio::sync_touched(this);
    constexpr std::memory_order order = std::memory_order_acq_rel;
    const std::uint32_t before = references_.fetch_sub(1, order);
    kio::sync_ordered(&references_, kio::SyncAccess::read_modify_write, order);
    if (count_was_zero(before) || before != 1) return;
    if (!released_) kio::sync_freed("a task", &references_);
    // Kept, so a later use finds memory to count; a second fall to zero is such a use.
    if (released_) {
        ++zero_count_uses;
        return;
    }
    released_ = true;
    released_tasks.push_back(this);
}
#else
void Task::release() noexcept {
    if (references_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
}
#endif

#if MOQ_SYNC_POINTS
std::size_t uses_at_zero_count() noexcept { return zero_count_uses; }

std::size_t unreleased_tasks() noexcept { return made_tasks - released_tasks.size(); }

std::size_t free_released_tasks() noexcept {
    const std::size_t count = released_tasks.size();
    for (Task* task : released_tasks) delete task;
    made_tasks -= count;
    released_tasks.clear();
    zero_count_uses = 0;
    return count;
}

void abandon_released_tasks() noexcept {
    made_tasks -= released_tasks.size();
    released_tasks.clear();
    zero_count_uses = 0;
}
#endif

kio::Waker Task::waker() noexcept {
    retain();
    return kio::Waker(&task_waker_vtable, this);
}

void Task::wake() MOQ_RUNTIME_NOEXCEPT {
    // One read-modify-write whatever the state, so everything the waking thread did
    // before it is visible to the poll that follows: idle becomes scheduled (and only
    // this wake queues it), running becomes notified, the rest stay as they are.
    std::uint32_t before = 0;
    if (MOQ_SITE("task.wake.one_update", fault)) {
        before = state_.fetch_or(TaskBits::notified, std::memory_order_acq_rel);
    } else {
        // The fault this point guards against: a look and a write apart, so a wake
        // between them is lost.
        before = state_.load(std::memory_order_acquire);
        state_.store(before | TaskBits::notified, std::memory_order_release);
    }
    // Woken while a worker polls it: notified, polled once more after that poll (E1).
    MOQ_SOMETIMES("task.wake.while_running", before == TaskBits::running);
    // Woken after its end: nothing happens (E3).
    MOQ_SOMETIMES("task.wake.after_done", (before & TaskBits::done) != 0);
    if (before != 0) return;
    if (MOQ_SITE("task.wake.queued_reference", fault)) retain();  // the queued run's
    queue_->schedule(this);
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
    // A wake during the poll must survive to the check below.
    if (!MOQ_SITE("task.run.keep_notified", fault)) state_.store(TaskBits::running, std::memory_order_release);
    expected = TaskBits::running;
    if (state_.compare_exchange_strong(expected, 0, std::memory_order_acq_rel, std::memory_order_acquire)) return;
    MOQ_PROBE("task.run.requeued_after_notify");
    // Woken while it ran: back to scheduled, queued once more. Nothing else can change
    // the state of a running task (wakes only add `notified`; cancel waits for the pool).
    MOQ_ASSERT_EQ(expected, TaskBits::running | TaskBits::notified);
    // Back to scheduled by a read-modify-write, never a store. A wake between the failed
    // exchange and here finds `notified` set, queues nothing, and counts on the next poll
    // to see what its thread wrote: its release reaches that poll's acquire only through
    // the release sequence it heads, which a store would end (C++20 [intro.races]).
    if (MOQ_SITE("task.run.requeue_in_release_sequence", fault))
        state_.fetch_and(~TaskBits::running, std::memory_order_release);
    else
        state_.store(TaskBits::notified, std::memory_order_release);
    retain();
    queue_->schedule(this);
}

void Task::cancel() MOQ_RUNTIME_NOEXCEPT {
    if (state_.exchange(TaskBits::done, std::memory_order_acq_rel) & TaskBits::done) return;
    // Dropped unfinished at shutdown (E5).
    MOQ_PROBE("task.cancel.dropped_unfinished");
    cancelled_ = true;
    finish(nullptr);
}

void Task::finish(std::exception_ptr error) MOQ_RUNTIME_NOEXCEPT {
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

void Task::wait_finished() const MOQ_RUNTIME_NOEXCEPT {
    while (!finished_.load(std::memory_order_acquire)) finished_.wait(false, std::memory_order_acquire);
}

}  // namespace detail
MOQ_RUNTIME_BUILD_END
}  // namespace moq::runtime
