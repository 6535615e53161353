// The thread pool's platform (runtime/system_threads.hpp says what one has) in the
// simulator: each thread is a simulated task, time is the executor's virtual clock, the
// mutex a kio::Mutex and the condition variable parks the waiting tasks. Waiting and
// notifying are switch points, so another task may run between a thread's last look for
// work and its park: the window the pool's lock must close. A waiter is listed before its
// lock is released, so a notify in that window is never lost, as a std::condition_variable
// unlocks and waits in one step. notify_one wakes the longest waiter, where a
// std::condition_variable may wake any; there are no spurious wakes.
//
// Every use of the platform's own records touches it (Executor::touch), so an exploration
// with complete footprints sees the threads' hand-offs as conflicting steps.
//
// Header only, for code built with sync points (MOQ_SYNC_POINTS): the runtime suite.
#pragma once

#if !MOQ_SYNC_POINTS
#error "sim/simulated_threads.hpp needs kio::Mutex with sync points: build with MOQ_SYNC_POINTS"
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kio/deadline.hpp"
#include "kio/poll.hpp"
#include "kio/sync.hpp"
#include "kio/time.hpp"
#include "kio/waker.hpp"
#include "sim/executor.hpp"
#include "util/assert.hpp"

namespace moq::sim {

class SimulatedThreads {
public:
    using TimePoint = kio::Instant;

    class Mutex : public kio::Mutex {
    public:
        Mutex() : kio::Mutex("pool.lock") {}
    };

    class CondVar {
    public:
        explicit CondVar(SimulatedThreads& platform) : platform_(platform) { platform.changed_ = this; }
        CondVar(const CondVar&) = delete;
        CondVar& operator=(const CondVar&) = delete;

        template <class Predicate>
        void wait(std::unique_lock<Mutex>& lock, Predicate woken) {
            while (!woken()) wait_once(lock, std::nullopt);
        }
        template <class Predicate>
        bool wait_until(std::unique_lock<Mutex>& lock, TimePoint until, Predicate woken) {
            while (!woken()) {
                if (platform_.now() >= until) return woken();
                wait_once(lock, until);
            }
            return true;
        }
        void notify_one() {
            kio::sync_point("pool.changed", this);
            platform_.executor_.touch(this);
            if (Waiting* waiting = first_unnotified()) notify(*waiting);
        }
        void notify_all() {
            kio::sync_point("pool.changed", this);
            platform_.executor_.touch(this);
            // Looked up again after each: an inline wake may run the waiter, which leaves the list.
            while (Waiting* waiting = first_unnotified()) notify(*waiting);
        }

        // Threads parked here, not notified since, whose deadline (if any) is still to come.
        [[nodiscard]] std::size_t quiet_waiters(TimePoint now) const {
            return static_cast<std::size_t>(std::count_if(waiting_.begin(), waiting_.end(), [now](const Waiting* w) {
                return w->parked && !w->notified && (!w->until || now < *w->until);
            }));
        }

    private:
        struct Waiting {
            std::optional<TimePoint> until;
            bool notified = false;
            bool parked = false;  // its task answered Pending and waits for its waker
            std::optional<kio::Waker> waker;
        };

        [[nodiscard]] Waiting* first_unnotified() const {
            const auto found = std::find_if(waiting_.begin(), waiting_.end(),
                                            [](const Waiting* waiting) { return !waiting->notified; });
            return found == waiting_.end() ? nullptr : *found;
        }

        static void notify(Waiting& waiting) {
            waiting.notified = true;
            if (waiting.waker) std::exchange(waiting.waker, std::nullopt)->wake();
        }

        void wait_once(std::unique_lock<Mutex>& lock, std::optional<TimePoint> until) {
            kio::sync_point("pool.changed", this);
            Executor& executor = platform_.executor_;
            Task thread = executor.running_task();
            Waiting waiting;
            waiting.until = until;
            executor.touch(this);
            waiting_.push_back(&waiting);  // listed before the lock goes: no notify is missed
            // Off the list as the wait ends, before the lock is taken again (a thread that
            // timed out is no waiter a notify could reach), or as an unwound task goes.
            struct Unlist {
                Executor& executor;
                CondVar& changed;
                Waiting* waiting;
                bool listed = true;
                void now() {
                    if (!std::exchange(listed, false)) return;
                    executor.touch(&changed);
                    changed.waiting_.erase(std::find(changed.waiting_.begin(), changed.waiting_.end(), waiting));
                }
                ~Unlist() { now(); }
            } unlist{executor, *this, &waiting};
            kio::Deadline deadline{thread.clock()};
            deadline.set(until);
            lock.unlock();
            thread.wait([&](const kio::Waiter& waiter) -> kio::Poll<kio::Done> {
                executor.touch(this);
                if (waiting.notified) return kio::Done{};
                if (deadline.poll(waiter).is_ready()) return kio::Done{};
                waiting.waker = waiter.waker();
                waiting.parked = true;
                platform_.thread_changed();
                return kio::Poll<kio::Done>::pending();
            });
            unlist.now();
            lock.lock();
        }

        SimulatedThreads& platform_;
        std::vector<Waiting*> waiting_;  // in the order they began to wait
    };

    explicit SimulatedThreads(Executor& executor) : executor_(executor) {}
    SimulatedThreads(const SimulatedThreads&) = delete;
    SimulatedThreads& operator=(const SimulatedThreads&) = delete;

    [[nodiscard]] TimePoint now() const { return executor_.clock().now(); }

    // Thread N is the task "poolN".
    void start(std::function<void()> body) {
        threads_.push_back(
            executor_.spawn("pool" + std::to_string(threads_.size()), [this, body = std::move(body)](Task&) {
                body();
                executor_.touch(this);
                ++ended_;
                thread_changed();
            }));
    }
    // Parks the running task until every thread's body returned; what the threads did
    // then happens before what it does next, as std::thread's join. Outside a run, the
    // threads must have ended already (a pool destroyed after its run ended well).
    void join_all() {
        executor_.touch(this);
        if (ended_ != threads_.size()) {
            executor_.running_task().wait([&](const kio::Waiter& waiter) -> kio::Poll<kio::Done> {
                executor_.touch(this);
                if (ended_ == threads_.size()) return kio::Done{};
                watcher_ = waiter.waker();
                return kio::Poll<kio::Done>::pending();
            });
        }
        if (Executor::current() != nullptr)
            for (const std::uint32_t thread : threads_) executor_.joined(thread);
        threads_.clear();
        ended_ = 0;
    }
    [[nodiscard]] std::size_t threads() const { return threads_.size(); }
    // A look of a spin: its atomic load is already a switch point.
    static void pause() noexcept {}

    // Parks `task` until every thread has ended or waits quietly (parked, not notified,
    // its deadline still to come) and `no_wake_coming()` holds (the pool told no thread to
    // wake whose notify is still on its way): the pool has nothing it will do without a
    // new call. A thread that parks or ends has the task look again.
    template <class NoWakeComing>
    void wait_idle(Task& task, NoWakeComing no_wake_coming) {
        task.wait([&](const kio::Waiter& waiter) -> kio::Poll<kio::Done> {
            executor_.touch(this);
            if (changed_) executor_.touch(changed_);  // the waiters' flags
            const std::size_t quiet = changed_ ? changed_->quiet_waiters(now()) : 0;
            if (ended_ + quiet == threads_.size() && no_wake_coming()) return kio::Done{};
            watcher_ = waiter.waker();
            return kio::Poll<kio::Done>::pending();
        });
    }

private:
    // A thread parked or ended: the task waiting for the pool to go idle or end looks again.
    void thread_changed() {
        executor_.touch(this);
        if (watcher_) std::exchange(watcher_, std::nullopt)->wake();
    }

    Executor& executor_;
    std::vector<std::uint32_t> threads_;  // each thread's task
    std::size_t ended_ = 0;
    const CondVar* changed_ = nullptr;  // the pool's condition variable
    std::optional<kio::Waker> watcher_;
};

}  // namespace moq::sim
