// The task state machine on real threads: one poll at a time, a wake during a poll
// polls once more, a wake never lost, wakers that outlive their task. Meant to run under
// ThreadSanitizer too (scripts/check --tsan).
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "kio/poll.hpp"
#include "kio/waiter.hpp"
#include "kio/waker.hpp"
#include "runtime/runtime.hpp"

using moq::kio::Done;
using moq::kio::Poll;
using moq::kio::Waiter;
using moq::kio::Waker;
using moq::runtime::JoinHandle;
using moq::runtime::Runtime;
using namespace std::chrono_literals;

namespace {

void wait_until(const std::atomic<int>& value, int at_least) {
    const auto until = std::chrono::steady_clock::now() + 10s;
    while (value.load() < at_least && std::chrono::steady_clock::now() < until) std::this_thread::yield();
}

Poll<Done> pending() { return Poll<Done>::pending(); }

}  // namespace

TEST_CASE("a_wake_during_a_poll_polls_the_task_once_more") {
    for (const std::size_t workers : {1u, 16u}) {
        CAPTURE(workers);
        Runtime runtime{workers};
        std::atomic<int> polls{0};
        std::atomic<bool> woken_from_outside{false};
        const JoinHandle handle = runtime.spawn([&](const Waiter& waiter) -> Poll<Done> {
            const int poll = ++polls;
            if (poll == 1) {
                // Three wakes while running: one more poll, not three.
                for (int i = 0; i < 3; ++i) waiter.waker().wake();
                return pending();
            }
            if (woken_from_outside) return Done{};
            return pending();
        });
        wait_until(polls, 2);
        // Time for a poll nothing asked for to show up.
        std::this_thread::sleep_for(30ms);
        CHECK(polls == 2);
        woken_from_outside = true;
        handle.waker().wake();
        REQUIRE(handle.wait_for(10s));
        CHECK(handle.join());
        CHECK(polls == 3);
    }
}

TEST_CASE("concurrent_wakes_never_poll_a_task_twice_at_once") {
    Runtime runtime{16};
    std::atomic<int> in_poll{0};
    std::atomic<int> overlaps{0};
    std::atomic<int> polls{0};
    std::atomic<bool> stop{false};
    const JoinHandle handle = runtime.spawn([&](const Waiter&) -> Poll<Done> {
        if (in_poll.fetch_add(1) != 0) ++overlaps;
        ++polls;
        // A poll long enough for other wakes to land while it runs.
        for (int i = 0; i < 20; ++i) std::this_thread::yield();
        const bool done = stop.load();
        in_poll.fetch_sub(1);
        return done ? Poll<Done>(Done{}) : pending();
    });
    // The wakes start once the first poll has begun, so some land while polls run.
    wait_until(polls, 1);
    constexpr int threads = 8;
    constexpr int wakes = 2000;
    std::vector<std::thread> wakers;
    wakers.reserve(threads);
    for (int t = 0; t < threads; ++t)
        wakers.emplace_back([&] {
            const Waker waker = handle.waker();
            for (int i = 0; i < wakes; ++i) {
                waker.wake();
                if (i % 16 == 0) std::this_thread::yield();  // spread over many polls
            }
        });
    for (std::thread& thread : wakers) thread.join();
    stop = true;
    handle.waker().wake();
    REQUIRE(handle.wait_for(10s));
    CHECK(handle.join());
    CHECK(overlaps == 0);
    // At most one poll a wake, plus the first.
    CHECK(polls <= threads * wakes + 2);
}

TEST_CASE("a_wake_after_the_last_pending_is_never_lost") {
    // Each round: the task parks, another thread changes a value and wakes it; the task
    // must see every value. A wake dropped between Pending and parking hangs a round.
    Runtime runtime{4};
    std::atomic<int> value{0};
    std::atomic<int> seen{0};
    constexpr int rounds = 5000;
    const JoinHandle handle = runtime.spawn([&](const Waiter&) -> Poll<Done> {
        const int now = value.load();
        if (now > seen.load()) seen.store(now);
        if (now == rounds) return Done{};
        return pending();
    });
    const Waker waker = handle.waker();
    for (int round = 1; round <= rounds; ++round) {
        wait_until(seen, round - 1);
        REQUIRE(seen.load() == round - 1);
        value.store(round);
        waker.wake();
    }
    REQUIRE(handle.wait_for(10s));
    CHECK(seen == rounds);
}

TEST_CASE("a_waker_outlives_its_task_and_its_runtime") {
    std::optional<Waker> kept;
    std::atomic<int> polls{0};
    {
        Runtime runtime{2};
        const JoinHandle handle = runtime.spawn([&](const Waiter& waiter) -> Poll<Done> {
            ++polls;
            kept = waiter.waker();
            return Done{};
        });
        REQUIRE(handle.wait_for(10s));
        CHECK(handle.join());
        kept->wake();  // after the end: nothing to poll
        std::this_thread::sleep_for(10ms);
        CHECK(polls == 1);
    }
    kept->wake();  // after the runtime is gone: still nothing, and no use of it
    const Waker clone = *kept;
    kept.reset();
    clone.wake();
    CHECK(polls == 1);
}

TEST_CASE("shutting_down_drops_the_tasks_that_did_not_finish") {
    // Says when the poll function that owns it is destroyed.
    class Sentinel {
    public:
        explicit Sentinel(std::atomic<bool>* dropped) : dropped_(dropped) {}
        Sentinel(const Sentinel&) = delete;
        Sentinel& operator=(const Sentinel&) = delete;
        ~Sentinel() { dropped_->store(true); }

    private:
        std::atomic<bool>* dropped_;
    };
    std::atomic<bool> dropped{false};
    std::atomic<int> polls{0};
    JoinHandle handle;
    Waker waker;
    {
        Runtime runtime{4};
        handle = runtime.spawn([&, sentinel = std::make_shared<Sentinel>(&dropped)](const Waiter&) {
            ++polls;
            return pending();
        });
        waker = handle.waker();
        wait_until(polls, 1);
        CHECK_FALSE(dropped);
    }
    CHECK(dropped);
    CHECK(handle.finished());
    CHECK_FALSE(handle.join());
    waker.wake();
    CHECK(polls == 1);
}

TEST_CASE("a_poll_that_throws_ends_its_task_and_the_join_rethrows") {
    Runtime runtime{2};
    const JoinHandle handle =
        runtime.spawn([](const Waiter&) -> Poll<Done> { throw std::runtime_error("the poll failed"); });
    REQUIRE(handle.wait_for(10s));
    CHECK_THROWS_WITH_AS(handle.join(), "the poll failed", std::runtime_error);
}

TEST_CASE("a_runtime_has_one_to_max_workers") {
    CHECK_THROWS_AS(Runtime{0}, std::invalid_argument);
    CHECK_THROWS_AS(Runtime{Runtime::max_workers + 1}, std::invalid_argument);
    Runtime one{1};
    CHECK(one.workers() == 1);
}

TEST_CASE("a_bounded_wait_for_a_parked_task_gives_up_and_one_for_a_finished_task_does_not") {
    Runtime runtime{2};
    std::atomic<bool> go{false};
    const JoinHandle handle =
        runtime.spawn([&](const Waiter&) { return go.load() ? Poll<Done>(Done{}) : Poll<Done>::pending(); });
    const auto started = std::chrono::steady_clock::now();
    CHECK_FALSE(handle.wait_for(20ms));
    CHECK(std::chrono::steady_clock::now() - started >= 20ms);
    go = true;
    handle.waker().wake();
    CHECK(handle.wait_for(10s));
    CHECK(handle.join());
}
