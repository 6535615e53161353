// The production clock: steady time, with a timer thread that wakes deadlines.
#pragma once

#include <chrono>
#include <condition_variable>
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

private:
    void run();

    const std::chrono::steady_clock::time_point start_;
    TimerQueue timers_;
    std::mutex mutex_;
    std::condition_variable changed_;
    bool stopping_ = false;
    std::thread thread_;
};

}  // namespace moq::kio
