// Writers on several threads, readers parked on the cell: no wake may be lost.
// Meant to run under ThreadSanitizer too (scripts/check --tsan).
#include <doctest/doctest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "kio/cell.hpp"
#include "kio/park.hpp"

using moq::kio::Consumer;
using moq::kio::Park;
using moq::kio::Producer;
using moq::kio::Waker;
using moq::kio::WakerVtable;

namespace {

// A thread that blocks until woken: the smallest real executor.
class Blocker {
public:
    Waker waker() { return Waker(&vtable, this); }
    void wait() {
        std::unique_lock lock(mutex_);
        // Bounded so a lost wake shows up as a failure, not a hang.
        woken_cv_.wait_for(lock, std::chrono::seconds(10), [&] { return woken_; });
        timed_out_ = timed_out_ || !woken_;
        woken_ = false;
    }
    [[nodiscard]] bool timed_out() const { return timed_out_; }

private:
    static void* clone(void* data) { return data; }
    static void wake(void* data) {
        auto* self = static_cast<Blocker*>(data);
        {
            std::lock_guard lock(self->mutex_);
            self->woken_ = true;
        }
        self->woken_cv_.notify_one();
    }
    static void drop(void*) {}
    static constexpr WakerVtable vtable{&clone, &wake, &drop};

    std::mutex mutex_;
    std::condition_variable woken_cv_;
    bool woken_ = false;
    bool timed_out_ = false;
};

}  // namespace

TEST_CASE("concurrent_writers_never_lose_a_wake") {
    constexpr int writers = 4;
    constexpr int writes_each = 2000;
    constexpr int readers = 3;
    constexpr int total = writers * writes_each;

    Producer<int> producer{0};
    std::vector<std::thread> threads;
    std::atomic<bool> any_timed_out{false};
    std::vector<int> final_seen(readers, 0);

    for (int r = 0; r < readers; ++r) {
        threads.emplace_back([&, r, consumer = producer.consume()] {
            Blocker blocker;
            Park park;
            int seen = 0;
            while (seen < total) {
                const auto& waiter = park.hold(blocker.waker());
                auto answer = consumer.poll(waiter, [seen](const int& value) -> std::optional<int> {
                    if (value > seen) return value;
                    return std::nullopt;
                });
                if (answer.is_ready()) {
                    seen = answer.value();
                    continue;
                }
                if (answer.is_closed()) break;
                blocker.wait();
                if (blocker.timed_out()) break;
            }
            final_seen[r] = seen;
            if (blocker.timed_out()) any_timed_out = true;
        });
    }
    for (int w = 0; w < writers; ++w) {
        threads.emplace_back([&] {
            for (int i = 0; i < writes_each; ++i) producer.modify([](int& value) { ++value; });
        });
    }
    for (std::thread& thread : threads) thread.join();
    CHECK_FALSE(any_timed_out.load());
    for (int r = 0; r < readers; ++r) CHECK(final_seen[r] == total);
}
