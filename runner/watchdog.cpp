#include "runner/watchdog.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

#include <unistd.h>

#include "sim/run_hook.hpp"

namespace moq::runner::watchdog {

namespace {

using Clock = std::chrono::steady_clock;

class Watch {
public:
    ~Watch() { stop(); }

    void stop() {
        {
            const std::lock_guard<std::mutex> hold(mutex_);
            stopping_ = true;
            describe_ = nullptr;
        }
        changed_.notify_all();
        if (thread_.joinable()) thread_.join();
    }

    void start(std::uint64_t limit_seconds, Now now) {
        const std::lock_guard<std::mutex> hold(mutex_);
        limit_ = std::chrono::seconds(limit_seconds);
        now_ = now;
        if (!thread_.joinable() && !stopping_) thread_ = std::thread([this] { patrol(); });
        changed_.notify_all();
    }
    void describe(Describe describe) {
        const std::lock_guard<std::mutex> hold(mutex_);
        describe_ = std::move(describe);
    }
    void at(std::uint64_t first, std::uint64_t second) {
        first_.store(first, std::memory_order_relaxed);
        second_.store(second, std::memory_order_relaxed);
        beat();
    }
    void beat() { beats_.fetch_add(1, std::memory_order_release); }

private:
    // Looks a few times a limit; fires when no run (nor case) has begun for a whole limit.
    void patrol() {
        std::unique_lock<std::mutex> hold(mutex_);
        std::uint64_t seen = beats_.load(std::memory_order_acquire);
        Clock::time_point since = now_();
        while (!stopping_) {
            const auto look =
                std::clamp<Clock::duration>(limit_ / 8, std::chrono::milliseconds(20), std::chrono::seconds(5));
            changed_.wait_for(hold, look);
            if (stopping_) return;
            const std::uint64_t beats = beats_.load(std::memory_order_acquire);
            const Clock::time_point now = now_();
            if (beats != seen) {
                seen = beats;
                since = now;
            } else if (now - since >= limit_) {
                fire();
            }
        }
    }

    // Under mutex_: the main thread is stuck in a run, so what it described holds still.
    // Written straight to the file descriptor: standard output's lock may be the main
    // thread's, and a report held up behind it would come too late or never.
    [[noreturn]] void fire() {
        const Described running =
            describe_ ? describe_(first_.load(std::memory_order_relaxed), second_.load(std::memory_order_relaxed))
                      : Described{"a run", ""};
        std::string report =
            "moqsim: HANG: " + running.what + " did not end within " +
            std::to_string(std::chrono::duration_cast<std::chrono::seconds>(limit_).count()) +
            " s of wall time: a loop that reaches no schedule point, which no simulated budget can stop\n";
        if (!running.again.empty()) report += "  again: " + running.again + "\n";
        for (std::size_t written = 0; written < report.size();) {
            const ssize_t wrote = ::write(STDERR_FILENO, report.data() + written, report.size() - written);
            if (wrote <= 0) break;
            written += static_cast<std::size_t>(wrote);
        }
        std::_Exit(1);
    }

    std::mutex mutex_;
    std::condition_variable changed_;
    std::thread thread_;
    Clock::duration limit_{std::chrono::seconds(default_limit_seconds)};
    Now now_ = &Clock::now;
    bool stopping_ = false;
    Describe describe_;
    std::atomic<std::uint64_t> beats_{0};
    std::atomic<std::uint64_t> first_{0};
    std::atomic<std::uint64_t> second_{0};
};

Watch& process_watch() {
    static Watch watch;
    return watch;
}

}  // namespace

void start(std::uint64_t limit_seconds, Now now) {
    process_watch().start(limit_seconds, now);
    // Every simulated run beats too: a shrink, a recheck or a replay runs many of them
    // between two cases, each a run that must end.
    sim::set_run_begin_hook([] { process_watch().beat(); });
}
void describe(Describe describe) { process_watch().describe(std::move(describe)); }
void stop() {
    sim::set_run_begin_hook(nullptr);
    process_watch().stop();
}
void at(std::uint64_t first, std::uint64_t second) { process_watch().at(first, second); }

}  // namespace moq::runner::watchdog
