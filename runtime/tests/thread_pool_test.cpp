// The runtime's thread pool: a worker held up by a long poll gets its backlog spread to
// another core once the spread delay passed; a burst of wakes from one poll wakes at most
// one parked thread; an idle pool wakes none. On real threads, also under
// ThreadSanitizer (scripts/check --tsan).
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "kio/cell.hpp"
#include "kio/poll.hpp"
#include "kio/system_clock.hpp"
#include "kio/waiter.hpp"
#include "runtime/runtime.hpp"
#include "runtime/thread_pool.hpp"

using moq::kio::Done;
using moq::kio::Poll;
using moq::kio::Producer;
using moq::kio::SystemClock;
using moq::kio::Waiter;
using moq::runtime::JoinHandle;
using moq::runtime::Runtime;
using moq::runtime::ThreadPool;
using namespace std::chrono_literals;

namespace {

// Two cores whatever the machine has, so a second drainer may run.
ThreadPool::Settings two_cores(std::chrono::nanoseconds spread_delay) {
    ThreadPool::Settings settings;
    settings.spread_delay = spread_delay;
    settings.cores = 2;
    return settings;
}

// Waits up to `limit` for `done` to hold, looking every 100 µs.
template <class Condition>
bool holds_within(std::chrono::milliseconds limit, Condition done) {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (!done()) {
        if (std::chrono::steady_clock::now() > until) return false;
        std::this_thread::sleep_for(100us);
    }
    return true;
}

}  // namespace

TEST_CASE("a_pool_has_at_least_one_thread") { CHECK_THROWS_AS(ThreadPool(0), std::invalid_argument); }

TEST_CASE("a_poll_that_holds_its_worker_has_the_runs_behind_it_spread_to_another_core") {
    // A long poll holds the only drainer while two runs wait behind it. The runtime calls
    // no drainer for them at once (the spread delay), so only the spreading turn given to
    // the pool can reach them before the long poll ends: without it they wait 5 s.
    for (const auto delay : {0ms, 1ms}) {
        CAPTURE(delay.count());
        ThreadPool pool{4, two_cores(delay)};
        SystemClock clock;
        Runtime runtime{4, pool, clock};
        std::atomic<bool> holding{false};
        std::atomic<int> behind_ran{0};
        std::atomic<bool> saw_them{false};
        JoinHandle holder = runtime.spawn([&](const Waiter&) -> Poll<Done> {
            holding = true;
            saw_them = holds_within(5000ms, [&] { return behind_ran.load() == 2; });
            return Done{};
        });
        REQUIRE(holds_within(5000ms, [&] { return holding.load(); }));
        std::vector<JoinHandle> behind;
        for (int index = 0; index < 2; ++index)
            behind.push_back(runtime.spawn([&](const Waiter&) -> Poll<Done> {
                ++behind_ran;
                return Done{};
            }));
        REQUIRE(holder.wait_for(20s));
        CHECK(saw_them.load());
        for (const JoinHandle& handle : behind) CHECK(handle.wait_for(20s));
        if (delay > 0ms) CHECK(pool.counts().delayed_calls >= 1);
    }
}

TEST_CASE("a_burst_of_wakes_from_one_poll_wakes_at_most_one_parked_thread") {
    // 64 tasks parked on a cell, woken by one task's poll: with a spread delay far longer
    // than the burst, one worker runs them all, and the burst wakes at most the one thread
    // that keeps the spreading turn.
    ThreadPool pool{16, two_cores(10s)};
    SystemClock clock;
    Runtime runtime{16, pool, clock};
    Producer<std::uint64_t> cell{0};
    constexpr int waiters = 64;
    std::atomic<int> woken{0};
    std::atomic<int> parked{0};
    std::vector<JoinHandle> handles;
    for (int index = 0; index < waiters; ++index)
        handles.push_back(
            runtime.spawn([&, consumer = cell.consume(), counted = false](const Waiter& waiter) mutable -> Poll<Done> {
                auto answer = consumer.poll(waiter, [](const std::uint64_t& value) -> std::optional<std::uint64_t> {
                    if (value > 0) return value;
                    return std::nullopt;
                });
                if (!answer.is_ready()) {
                    if (!std::exchange(counted, true)) ++parked;
                    return Poll<Done>::pending();
                }
                ++woken;
                return Done{};
            }));
    // Every waiter parked, and the pool settled.
    REQUIRE(holds_within(5000ms, [&] { return parked.load() == waiters; }));
    std::this_thread::sleep_for(20ms);
    const ThreadPool::Counts before = pool.counts();
    JoinHandle waker = runtime.spawn([&](const Waiter&) -> Poll<Done> {
        cell.modify([](std::uint64_t& value) { value = 1; });
        return Done{};
    });
    CHECK(waker.wait_for(20s));
    for (const JoinHandle& handle : handles) CHECK(handle.wait_for(20s));
    CHECK(woken.load() == waiters);
    const ThreadPool::Counts after = pool.counts();
    // One thread for the waker's own run (called from outside the workers), one at most
    // for the spreading turn.
    CHECK(after.wakeups - before.wakeups <= 2);
    CHECK(after.delayed_calls == before.delayed_calls);
}

TEST_CASE("an_idle_pool_wakes_no_thread") {
    ThreadPool pool{16, two_cores(1ms)};
    SystemClock clock;
    Runtime runtime{16, pool, clock};
    std::vector<JoinHandle> handles;
    for (int index = 0; index < 32; ++index) handles.push_back(runtime.spawn([](const Waiter&) { return Done{}; }));
    for (const JoinHandle& handle : handles) REQUIRE(handle.wait_for(20s));
    std::this_thread::sleep_for(20ms);  // a spreading turn armed by the burst has run by now
    const ThreadPool::Counts settled = pool.counts();
    std::this_thread::sleep_for(50ms);
    const ThreadPool::Counts later = pool.counts();
    CHECK(later.wakeups == settled.wakeups);
    CHECK(later.delayed_calls == settled.delayed_calls);
}
