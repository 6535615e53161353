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
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "kio/time.hpp"
#include "runtime/variant.hpp"
#include "runtime/workers.hpp"

namespace moq::runtime {
MOQ_RUNTIME_BUILD_BEGIN

class ThreadPool final : public WorkerHost {
public:
    struct Settings {
        // How many times an idle thread looks for a call before it parks (0: at once).
        std::uint32_t spin_rounds = 256;
        // WorkerHost::spread_delay. On two cores, 64 short polls cost a third as much CPU on
        // one as spread over both; at most one delayed call a delay wakes a parked thread,
        // so a shorter one costs more (bench/README.md, the idle cost).
        kio::Duration spread_delay = std::chrono::milliseconds(1);
        // The cores drainers may use at once; 0: the machine's.
        std::size_t cores = 0;
    };

    // `threads` threads (1 or more).
    explicit ThreadPool(std::size_t threads) : ThreadPool(threads, Settings{}) {}
    ThreadPool(std::size_t threads, Settings settings);
    ~ThreadPool() override;
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    [[nodiscard]] std::size_t cores() const override;
    void run(Drainer drainer) override;
    [[nodiscard]] kio::Duration spread_delay() const override { return settings_.spread_delay; }
    void run_after(Drainer drainer, kio::Duration delay) override;
    void stop_and_join() override;

    // What the pool did so far, for tests and benches: threads woken from a park, calls
    // a spinning thread took without one, and delayed calls run.
    struct Counts {
        std::uint64_t wakeups = 0;
        std::uint64_t taken_while_spinning = 0;
        std::uint64_t delayed_calls = 0;
    };
    [[nodiscard]] Counts counts() const;

private:
    void work();
    // Under the lock: takes one call, if any, and runs it with the lock released.
    bool run_one(std::unique_lock<std::mutex>& lock);
    // Under the lock: gives a parked thread a wake, if one is parked; the caller notifies.
    bool tell_one_to_wake();
    // Under the lock: runs the delayed call once its time came.
    bool run_due(std::unique_lock<std::mutex>& lock);
    // With the lock released: looks for a call up to spin_rounds times.
    bool spin_for_call() const;
    // Under the lock: parks until told to wake, the stop, or (for the thread that keeps
    // the delayed call) its time.
    void park(std::unique_lock<std::mutex>& lock);

    const Settings settings_;
    mutable std::mutex mutex_;
    std::condition_variable parked_cv_;
    std::optional<Drainer> drainer_;          // every call runs the same runtime's drainer
    std::size_t calls_ = 0;                   // calls not taken yet
    std::atomic<std::size_t> calls_seen_{0};  // calls_, for the spinner to read without the lock
    std::size_t spinning_ = 0;                // 0 or 1: threads looking for a call without the lock
    std::size_t parked_ = 0;                  // threads waiting on parked_cv_ not yet told to wake
    std::size_t waking_ = 0;                  // threads told to wake that have not taken the wake yet
    std::optional<Drainer> delayed_;          // the spreading turn run_after was given
    std::chrono::steady_clock::time_point delayed_at_;
    bool delayed_kept_ = false;  // a parked thread waits for its time
    bool stopping_ = false;
    Counts counts_;
    std::vector<std::thread> threads_;
};

MOQ_RUNTIME_BUILD_END
}  // namespace moq::runtime
