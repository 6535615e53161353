// The platform the thread pool (runtime/thread_pool.hpp) runs on as it ships: std::thread,
// std::mutex, std::condition_variable and steady time. The simulator gives the same pool
// another platform (sim/simulated_threads.hpp), whose threads are simulated tasks.
//
// A Platform has: Mutex; CondVar, made from the platform, with wait(lock, predicate),
// wait_until(lock, TimePoint, predicate), notify_one() and notify_all(); TimePoint and
// now(); start(body), which runs `body` on a new thread; join_all(), which waits for every
// thread started to return; threads(), how many were started; pause(), one look's pause
// in a spin.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/variant.hpp"

namespace moq::runtime {
MOQ_RUNTIME_BUILD_BEGIN

class SystemThreads {
public:
    using Mutex = std::mutex;
    using TimePoint = std::chrono::steady_clock::time_point;
    class CondVar : public std::condition_variable {
    public:
        explicit CondVar(SystemThreads&) {}
    };

    SystemThreads() = default;
    SystemThreads(const SystemThreads&) = delete;
    SystemThreads& operator=(const SystemThreads&) = delete;

    [[nodiscard]] static TimePoint now() { return std::chrono::steady_clock::now(); }
    void start(std::function<void()> body) { threads_.emplace_back(std::move(body)); }
    void join_all() {
        for (std::thread& thread : threads_) thread.join();
        threads_.clear();
    }
    [[nodiscard]] std::size_t threads() const { return threads_.size(); }

    // Tells the core a spin is under way, so a sibling hyperthread runs.
    static void pause() noexcept {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#elif defined(__aarch64__)
        asm volatile("yield");
#else
        std::this_thread::yield();
#endif
    }

private:
    std::vector<std::thread> threads_;
};

MOQ_RUNTIME_BUILD_END
}  // namespace moq::runtime
