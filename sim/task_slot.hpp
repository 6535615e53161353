// What the executor keeps of a task and of a task's waker: its own parts
// (executor.cpp, executor_decisions.cpp), not for the executor's users.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include <boost/context/fiber.hpp>

#include "kio/park.hpp"
#include "kio/waker.hpp"
#include "sim/executor.hpp"
#include "sim/fiber_sanitizer.hpp"

namespace moq::sim {

namespace detail {

// What a task's waker points at. A task gets a new identity when it polls "from a fresh
// task"; wakes sent to an old one reach nobody (a stale wake), as they would for a task
// that no longer polls this reader. The executor holds every target it made, current or
// old, until it is destroyed; then it clears `executor` in each, so a waker that outlives
// the executor wakes nothing.
struct WakeTarget {
    std::atomic<std::uint32_t> refs{1};
    Executor* executor = nullptr;  // null once the executor is gone
    std::uint32_t task = 0;
    std::uint64_t identity = 0;

    kio::Waker waker() {
        refs.fetch_add(1, std::memory_order_relaxed);
        return kio::Waker(&vtable, this);
    }
    void release() {
        if (refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
    }

    static void* clone_fn(void* data) {
        static_cast<WakeTarget*>(data)->refs.fetch_add(1, std::memory_order_relaxed);
        return data;
    }
    static void wake_fn(void* data) {
        auto* target = static_cast<WakeTarget*>(data);
        if (target->executor) target->executor->wake(target->task, target->identity);
    }
    static void drop_fn(void* data) { static_cast<WakeTarget*>(data)->release(); }
    static constexpr kio::WakerVtable vtable{&clone_fn, &wake_fn, &drop_fn};
};

struct TaskSlot {
    enum class State { runnable, running, parked, finished };

    std::uint32_t id = 0;
    std::string name;
    std::function<void(Task&)> body;
    boost::context::fiber fiber;
    bool fiber_pending = false;  // spawned by a running task: its fiber is made when stepped
    boost::context::fiber back;  // the scheduler, while this task runs
    FiberSanitizer sanitizer;    // what ASan and TSan are told of its switches
    State state = State::runnable;
    bool woken = false;  // a wake for the current identity since this poll began
    WakeTarget* identity = nullptr;
    kio::Park park;
    TaskStats stats;
    // Decision-driven runs: what the code from where it was switched away touches (the
    // object its schedule point named); null after a park, a yield or at its start.
    const void* resume_object = nullptr;
    const char* stopped_at = nullptr;  // the schedule point it was switched away at ("blocked": a lock), if it was
};

}  // namespace detail

}  // namespace moq::sim
