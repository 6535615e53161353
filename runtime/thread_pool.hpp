// The runtime's default worker host: a fixed set of threads that run the drainers the
// runtime calls (runtime/workers.hpp). Cheap when idle:
//   - a thread that finds no call spins a bounded while before it parks, so a call that
//     comes soon after costs no sleep and no wake-up;
//   - at most one thread spins at a time, and a call wakes a parked thread only when
//     more calls wait than threads are spinning or already being woken, so a burst of
//     calls wakes as few threads as it needs and an idle pool wakes none;
//   - a delayed call (run_after) is kept by one parked thread, which waits until its
//     time, or taken by a thread that comes back from a drainer after it.
// Every call is run once by one thread. Its lock is never held while a drainer runs. A pool
// serves one runtime.
//
// Written over a platform (runtime/system_threads.hpp) that gives its threads, lock,
// condition variable and time: as it ships, std::thread and steady time (`ThreadPool`);
// in the simulator, simulated tasks and virtual time (sim/simulated_threads.hpp), so the
// runtime suite explores the same park and wake handshakes it runs on real threads.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <utility>

#include "kio/sync.hpp"
#include "kio/time.hpp"
#include "runtime/system_threads.hpp"
#include "runtime/variant.hpp"
#include "runtime/workers.hpp"
#include "util/assert.hpp"
#include "util/mutation.hpp"
#include "util/probe.hpp"

namespace moq::runtime {
MOQ_RUNTIME_BUILD_BEGIN

struct ThreadPoolSettings {
    // How many times an idle thread looks for a call before it parks (0: at once).
    std::uint32_t spin_rounds = 256;
    // WorkerHost::spread_delay. On two cores, 64 short polls cost a third as much CPU on
    // one as spread over both; at most one delayed call a delay wakes a parked thread,
    // so a shorter one costs more (bench/README.md, the idle cost).
    kio::Duration spread_delay = std::chrono::milliseconds(1);
    // The cores drainers may use at once; 0: the machine's.
    std::size_t cores = 0;
};

// What a pool did so far, for tests and benches: threads woken from a park, calls a
// spinning thread took without one, and delayed calls run.
struct ThreadPoolCounts {
    std::uint64_t wakeups = 0;
    std::uint64_t taken_while_spinning = 0;
    std::uint64_t delayed_calls = 0;
};

template <class Platform>
class BasicThreadPool final : public WorkerHost {
public:
    using Settings = ThreadPoolSettings;
    using Counts = ThreadPoolCounts;

    // `threads` threads (1 or more), on a platform made from `platform_arguments`.
    template <class... PlatformArguments>
    BasicThreadPool(std::size_t threads, Settings settings, PlatformArguments&&... platform_arguments)
        : settings_(settings),
          platform_(std::forward<PlatformArguments>(platform_arguments)...),
          parked_cv_(platform_) {
        if (threads == 0) throw std::invalid_argument("a thread pool has at least one thread");
        for (std::size_t index = 0; index < threads; ++index) platform_.start([this] { work(); });
    }
    explicit BasicThreadPool(std::size_t threads) : BasicThreadPool(threads, Settings{}) {}
    ~BasicThreadPool() override {
        if (platform_.threads() != 0) stop_and_join();
    }
    BasicThreadPool(const BasicThreadPool&) = delete;
    BasicThreadPool& operator=(const BasicThreadPool&) = delete;

    [[nodiscard]] std::size_t cores() const override {
        if (settings_.cores != 0) return settings_.cores;
        return std::max(1u, std::thread::hardware_concurrency());
    }

    void run(Drainer drainer) override {
        bool wake = false;
        {
            std::lock_guard lock(mutex_);
            // One runtime a pool: every call runs the one drainer kept.
            MOQ_ASSERT(!drainer_ || drainer_->same_runtime(drainer));
            drainer_ = drainer;
            ++calls_;
            calls_seen_.store(calls_, std::memory_order_relaxed);
            // A spinning thread, or one already told to wake, takes a call; wake another
            // only for a call none of them will take.
            wake = calls_ > spinning_ + waking_ && MOQ_SITE("pool.run.wake_parked", notify) && tell_one_to_wake();
        }
        // No spinning or waking thread takes this call: a parked one is woken.
        MOQ_SOMETIMES("pool.run.woke_parked_thread", wake);
        if (wake) parked_cv_.notify_one();
    }

    [[nodiscard]] kio::Duration spread_delay() const override { return settings_.spread_delay; }

    void run_after(Drainer drainer, kio::Duration delay) override {
        bool wake = false;
        {
            std::lock_guard lock(mutex_);
            MOQ_ASSERT(!delayed_.has_value());
            delayed_ = drainer;
            delayed_at_ = platform_.now() + delay;
            // A parked thread keeps it; one that spins or is being woken will park and keep
            // it itself.
            wake = !delayed_kept_ && spinning_ + waking_ == 0 && MOQ_SITE("pool.run_after.wake_keeper", notify) &&
                   tell_one_to_wake();
        }
        // Nobody will park to keep the delayed call: a parked thread is woken to keep it.
        MOQ_SOMETIMES("pool.run_after.woke_keeper", wake);
        if (wake) parked_cv_.notify_one();
    }

    void stop_and_join() override {
        {
            std::lock_guard lock(mutex_);
            stopping_ = true;
        }
        parked_cv_.notify_all();
        platform_.join_all();
    }

    [[nodiscard]] Counts counts() const {
        std::lock_guard lock(mutex_);
        return counts_;
    }
    // Whether a thread was told to wake and has not taken the wake yet: its notify may
    // still be on its way, so a pool whose threads all wait is not idle while this holds.
    [[nodiscard]] bool waking() const {
        std::lock_guard lock(mutex_);
        return waking_ != 0;
    }
    [[nodiscard]] Platform& platform() { return platform_; }

private:
    // Under the lock: gives a parked thread a wake, if one is parked; the caller notifies.
    bool tell_one_to_wake() {
        if (parked_ == 0) return false;
        --parked_;
        ++waking_;
        ++counts_.wakeups;
        return true;
    }

    // Under the lock: takes one call, if any, and runs it with the lock released.
    bool run_one(std::unique_lock<typename Platform::Mutex>& lock) {
        if (calls_ == 0) return false;
        --calls_;
        calls_seen_.store(calls_, std::memory_order_relaxed);
        const Drainer drainer = *drainer_;
        lock.unlock();
        drainer();
        lock.lock();
        return true;
    }

    // Under the lock: runs the delayed call once its time came.
    bool run_due(std::unique_lock<typename Platform::Mutex>& lock) {
        if (!delayed_ || platform_.now() < delayed_at_) return false;
        const Drainer drainer = *delayed_;
        delayed_.reset();
        ++counts_.delayed_calls;
        MOQ_PROBE("pool.delayed.call_ran");
        lock.unlock();
        drainer();
        lock.lock();
        return true;
    }

    // With the lock released: looks for a call up to spin_rounds times.
    bool spin_for_call() {
        for (std::uint32_t round = 0; round < settings_.spin_rounds; ++round) {
            if (calls_seen_.load(std::memory_order_relaxed) > 0) return true;
            platform_.pause();
        }
        return false;
    }

    // Under the lock: parks until told to wake, the stop, or (for the thread that keeps
    // the delayed call) its time.
    void park(std::unique_lock<typename Platform::Mutex>& lock) {
        const bool keeper = delayed_.has_value() && !delayed_kept_;
        if (keeper) delayed_kept_ = true;
        ++parked_;
        const auto woken = [&] { return waking_ > 0 || stopping_; };
        if (keeper)
            parked_cv_.wait_until(lock, delayed_at_, woken);
        else
            parked_cv_.wait(lock, woken);
        if (keeper) delayed_kept_ = false;
        if (waking_ > 0) {
            --waking_;  // a wake is taken by whichever parked thread sees it first
        } else {
            // The keeper's timed wait ended at the delayed call's time, with no wake.
            MOQ_SOMETIMES("pool.park.keeper_time_came", keeper && !stopping_);
            --parked_;  // the stop, or the delayed call's time
        }
    }

    void work() {
        std::unique_lock lock(mutex_);
        for (;;) {
            if (run_one(lock) || run_due(lock)) continue;
            if (stopping_) return;
            // One thread at a time looks for a call before parking; the rest park at once.
            if (spinning_ == 0 && settings_.spin_rounds > 0) {
                ++spinning_;
                lock.unlock();
                const bool seen = spin_for_call();
                lock.lock();
                --spinning_;
                MOQ_SOMETIMES("pool.spin.call_taken_while_spinning", seen && calls_ > 0);
                if (seen && calls_ > 0) ++counts_.taken_while_spinning;
                if (run_one(lock) || run_due(lock)) continue;
                if (stopping_) return;
            }
            park(lock);
        }
    }

    const Settings settings_;
    Platform platform_;
    mutable typename Platform::Mutex mutex_;
    typename Platform::CondVar parked_cv_;
    std::optional<Drainer> drainer_;  // every call runs the same runtime's drainer
    std::size_t calls_ = 0;           // calls not taken yet
    // calls_, for the spinner to read without the lock.
    kio::Atomic<std::size_t> calls_seen_{"pool.calls_seen", 0};
    std::size_t spinning_ = 0;        // 0 or 1: threads looking for a call without the lock
    std::size_t parked_ = 0;          // threads waiting on parked_cv_ not yet told to wake
    std::size_t waking_ = 0;          // threads told to wake that have not taken the wake yet
    std::optional<Drainer> delayed_;  // the spreading turn run_after was given
    typename Platform::TimePoint delayed_at_{};
    bool delayed_kept_ = false;  // a parked thread waits for its time
    bool stopping_ = false;
    Counts counts_;
};

using ThreadPool = BasicThreadPool<SystemThreads>;
extern template class BasicThreadPool<SystemThreads>;

MOQ_RUNTIME_BUILD_END
}  // namespace moq::runtime
