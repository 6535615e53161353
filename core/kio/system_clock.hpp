// The production clock: steady time, with a timer thread that wakes deadlines.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include "kio/core_lock.hpp"
#include "kio/timer_thread_clock.hpp"

namespace moq::kio {

// A std::thread, a std::mutex taken as a core lock, and steady time since the clock began.
class SteadyThreadPlatform {
public:
    using Mutex = std::mutex;
    class Guard {
    public:
        explicit Guard(std::mutex& mutex) : lock_(mutex, LockLevel::clock) {}

    private:
        CoreLock lock_;
    };
    class CondVar : public std::condition_variable {
    public:
        explicit CondVar(SteadyThreadPlatform&) {}
    };

    SteadyThreadPlatform() : start_(std::chrono::steady_clock::now()) {}

    [[nodiscard]] Instant now() const {
        return Instant{std::chrono::duration_cast<Duration>(std::chrono::steady_clock::now() - start_)};
    }
    void start(std::function<void()> body) { thread_ = std::thread(std::move(body)); }
    void join() { thread_.join(); }

private:
    std::chrono::steady_clock::time_point start_;
    std::thread thread_;
};

extern template class TimerThreadClock<SteadyThreadPlatform>;

class SystemClock final : public TimerThreadClock<SteadyThreadPlatform> {};

}  // namespace moq::kio
