// What spawn hands back: a way to wait for a task's end from outside the pool, and to
// wake it from there.
#pragma once

#include <exception>
#include <utility>

#include "kio/waker.hpp"
#include "runtime/task.hpp"

namespace moq::runtime {

class JoinHandle {
public:
    JoinHandle() noexcept = default;
    explicit JoinHandle(detail::TaskRef task) noexcept : task_(std::move(task)) {}

    // Blocks until the task is done. True when its poll answered Ready, false when the
    // runtime shut down first and dropped it; rethrows what its poll threw. Never call it
    // from a worker of the task's own runtime (it would hold the worker).
    bool join() const {
        task_->wait_finished();
        if (std::exception_ptr error = task_->error()) std::rethrow_exception(error);
        return !task_->cancelled();
    }
    [[nodiscard]] bool finished() const noexcept { return task_->finished(); }
    // A waker of the task, as its own polls get (a wake after its end does nothing).
    [[nodiscard]] kio::Waker waker() const noexcept { return task_->waker(); }
    [[nodiscard]] bool valid() const noexcept { return static_cast<bool>(task_); }

private:
    detail::TaskRef task_;
};

}  // namespace moq::runtime
