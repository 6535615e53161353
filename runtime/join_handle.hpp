// What spawn hands back: a way to wait for a task's end from outside the pool, and to
// wake it from there.
#pragma once

#include <chrono>
#include <exception>
#include <thread>
#include <utility>

#include "kio/waker.hpp"
#include "runtime/task.hpp"
#include "runtime/variant.hpp"

namespace moq::runtime {
MOQ_RUNTIME_BUILD_BEGIN

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
    [[nodiscard]] bool finished() const MOQ_RUNTIME_NOEXCEPT { return task_->finished(); }
    // Waits until the task is done or `limit` has passed; true once it is done. For a
    // caller that must report a lost wake rather than hang (it looks every millisecond).
    [[nodiscard]] bool wait_for(std::chrono::milliseconds limit) const {
        const auto until = std::chrono::steady_clock::now() + limit;
        while (!finished()) {
            if (std::chrono::steady_clock::now() >= until) return false;
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        return true;
    }
    // A waker of the task, as its own polls get (a wake after its end does nothing).
    [[nodiscard]] kio::Waker waker() const noexcept { return task_->waker(); }
    [[nodiscard]] bool valid() const noexcept { return static_cast<bool>(task_); }

private:
    detail::TaskRef task_;
};

MOQ_RUNTIME_BUILD_END
}  // namespace moq::runtime
