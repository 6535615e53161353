// A timer thread's platform (kio/timer_thread_clock.hpp) in the simulator: the thread is
// a simulated task, time is the executor's virtual clock, the mutex is a kio::Mutex and
// the condition variable parks the task. Waiting and notifying are switch points named
// after the condition variable, so another task may run between the thread's last look
// at its deadlines and its wait: the window its lock must close. A wake through the
// condition variable goes through the executor, which orders the notifier before the
// woken thread (sim/happens_before.hpp).
//
// Header only, for code built with sync points (MOQ_SYNC_POINTS): the runtime suite.
#pragma once

#if !MOQ_SYNC_POINTS
#error "sim/simulated_thread_platform.hpp needs kio::Mutex with sync points: build with MOQ_SYNC_POINTS"
#endif

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "kio/deadline.hpp"
#include "kio/poll.hpp"
#include "kio/sync.hpp"
#include "kio/waker.hpp"
#include "sim/executor.hpp"
#include "util/assert.hpp"

namespace moq::sim {

// A label made at run time that lives as long as the process: a decision keeps its
// schedule point's label past the run (sim/decisions.hpp), and the platform does not.
inline const char* lasting_label(const std::string& text) {
    static std::mutex mutex;
    static auto* labels = new std::set<std::string>();  // never freed: labels outlive every run
    std::lock_guard lock(mutex);
    return labels->insert(text).first->c_str();
}

class SimulatedThreadPlatform {
public:
    class Mutex : public kio::Mutex {
    public:
        Mutex() : kio::Mutex("clock.lock") {}
    };
    class Guard {
    public:
        explicit Guard(Mutex& mutex) : lock_(mutex) {}

    private:
        std::lock_guard<Mutex> lock_;
    };

    class CondVar {
    public:
        explicit CondVar(SimulatedThreadPlatform& platform) : platform_(platform) { platform.changed_ = this; }
        CondVar(const CondVar&) = delete;
        CondVar& operator=(const CondVar&) = delete;

        void wait(std::unique_lock<Mutex>& lock) { wait_until(lock, std::nullopt); }
        void wait_for(std::unique_lock<Mutex>& lock, kio::Duration delay) { wait_until(lock, platform_.now() + delay); }
        void notify_all() {
            kio::sync_point(platform_.changed_label_, this);
            ++notifications_;
            if (waiting_) std::exchange(waiting_, std::nullopt)->wake();
        }

        // Parked, not notified since, and its deadline (if any) still to come.
        [[nodiscard]] bool waiting_quietly(kio::Instant now) const {
            return waiting_.has_value() && (!until_ || now < *until_);
        }

    private:
        // Only the platform's thread waits. Unlocking and parking are one step, as a
        // condition variable's wait is one atomic operation.
        void wait_until(std::unique_lock<Mutex>& lock, std::optional<kio::Instant> until) {
            kio::sync_point(platform_.changed_label_, this);
            Task& thread = platform_.thread();
            const std::uint64_t seen = notifications_;
            kio::Deadline deadline{thread.clock()};
            deadline.set(until);
            until_ = until;
            lock.unlock();
            thread.wait([&](const kio::Waiter& waiter) -> kio::Poll<kio::Done> {
                if (notifications_ != seen) return kio::Done{};
                if (deadline.poll(waiter).is_ready()) return kio::Done{};
                waiting_ = waiter.waker();
                platform_.parked();
                return kio::Poll<kio::Done>::pending();
            });
            waiting_.reset();
            lock.lock();
        }

        SimulatedThreadPlatform& platform_;
        std::optional<kio::Instant> until_;  // of the wait under way
        std::uint64_t notifications_ = 0;
        std::optional<kio::Waker> waiting_;  // the thread's, while it waits
    };

    // `name`: the thread task's name; its condition variable's switch points are
    // "NAME.changed".
    SimulatedThreadPlatform(Executor& executor, std::string name)
        : executor_(executor), name_(std::move(name)), changed_label_(lasting_label(name_ + ".changed")) {}
    SimulatedThreadPlatform(const SimulatedThreadPlatform&) = delete;
    SimulatedThreadPlatform& operator=(const SimulatedThreadPlatform&) = delete;

    [[nodiscard]] kio::Instant now() const { return executor_.clock().now(); }

    void start(std::function<void()> body) {
        thread_id_ = executor_.spawn(name_, [this, body = std::move(body)](Task& task) {
            thread_ = &task;
            body();
            ended_ = true;
            if (joiner_waker_) std::exchange(joiner_waker_, std::nullopt)->wake();
        });
    }
    // Parks the joiner (joined_by) until the thread's body returned; what the thread did
    // then happens before what the joiner does next, as a std::thread's join.
    void join() {
        if (!ended_) {
            MOQ_ASSERT(joiner_ != nullptr);
            joiner_->wait([&](const kio::Waiter& waiter) -> kio::Poll<kio::Done> {
                if (ended_) return kio::Done{};
                joiner_waker_ = waiter.waker();
                return kio::Poll<kio::Done>::pending();
            });
        }
        executor_.joined(thread_id_);
    }
    // The task that destroys the clock, and so joins its thread.
    void joined_by(Task& task) { joiner_ = &task; }
    // Parks `task` until the thread waits on its condition variable: it has fired every
    // deadline due at the time it looked, and a deadline it waits for is later.
    void wait_parked(Task& task) {
        task.wait([&](const kio::Waiter& waiter) -> kio::Poll<kio::Done> {
            if (ended_ || (changed_ && changed_->waiting_quietly(now()))) return kio::Done{};
            parked_watcher_ = waiter.waker();
            return kio::Poll<kio::Done>::pending();
        });
    }

    // The thread's task, once it began.
    [[nodiscard]] Task& thread() {
        MOQ_ASSERT(thread_ != nullptr);
        return *thread_;
    }

private:
    void parked() {
        if (parked_watcher_) std::exchange(parked_watcher_, std::nullopt)->wake();
    }

    Executor& executor_;
    std::string name_;
    const char* changed_label_;
    Task* thread_ = nullptr;
    std::uint32_t thread_id_ = 0;
    Task* joiner_ = nullptr;
    std::optional<kio::Waker> joiner_waker_;
    std::optional<kio::Waker> parked_watcher_;
    const CondVar* changed_ = nullptr;  // the thread's condition variable
    bool ended_ = false;
};

}  // namespace moq::sim
