// The production clock: steady time, with a timer thread that wakes deadlines.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

#include "kio/clock.hpp"
#include "kio/timer_queue.hpp"

namespace moq::kio {

class SystemClock final : public Clock {
public:
    SystemClock();
    ~SystemClock() override;
    SystemClock(const SystemClock&) = delete;
    SystemClock& operator=(const SystemClock&) = delete;

    [[nodiscard]] Instant now() const override;
    void wake_at(Instant at, const Waiter& waiter) override;
    // How often the timer thread woke, for tests: a far deadline must not spin it.
    [[nodiscard]] std::uint64_t timer_turns() const { return turns_.load(std::memory_order_relaxed); }

private:
    void run();

    const std::chrono::steady_clock::time_point start_;
    TimerQueue timers_;
    std::mutex mutex_;
    std::condition_variable changed_;
    bool stopping_ = false;
    std::atomic<std::uint64_t> turns_{0};
    std::thread thread_;
};

}  // namespace moq::kio
