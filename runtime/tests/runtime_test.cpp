// The runtime with the core's own inputs: many tasks parked on a cell on 16 workers, a
// relay of tasks waking each other, deadlines on the system clock, spawns from a task.
// Meant to run under ThreadSanitizer too (scripts/check --tsan).
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <thread>
#include <vector>

#include "kio/cell.hpp"
#include "kio/deadline.hpp"
#include "kio/poll.hpp"
#include "kio/waiter.hpp"
#include "runtime/runtime.hpp"

using moq::kio::Consumer;
using moq::kio::Deadline;
using moq::kio::Done;
using moq::kio::Poll;
using moq::kio::Producer;
using moq::kio::Waiter;
using moq::runtime::JoinHandle;
using moq::runtime::Runtime;
using namespace std::chrono_literals;

namespace {

// Bounded, so a lost wake is a failure and not a hang.
bool all_finish_within(const std::vector<JoinHandle>& handles) {
    return std::all_of(handles.begin(), handles.end(), [](const JoinHandle& handle) { return handle.wait_for(20s); });
}

}  // namespace

TEST_CASE("many_tasks_parked_on_a_cell_all_wake_on_16_workers") {
    Runtime runtime{16};
    Producer<std::uint64_t> cell{0};
    constexpr std::uint64_t steps = 10;
    constexpr int tasks = 1000;
    std::atomic<int> finished{0};
    std::vector<JoinHandle> handles;
    for (int i = 0; i < tasks; ++i) {
        // Each waits for a value of its own, so every change wakes some and parks others.
        const std::uint64_t wanted = 1 + static_cast<std::uint64_t>(i) % steps;
        handles.push_back(runtime.spawn([&, wanted, consumer = cell.consume()](const Waiter& waiter) -> Poll<Done> {
            auto answer = consumer.poll(waiter, [&](const std::uint64_t& value) -> std::optional<std::uint64_t> {
                if (value >= wanted) return value;
                return std::nullopt;
            });
            if (!answer.is_ready()) return Poll<Done>::pending();
            ++finished;
            return Done{};
        }));
    }
    for (std::uint64_t step = 0; step < steps; ++step) {
        std::this_thread::sleep_for(1ms);
        cell.modify([](std::uint64_t& value) { ++value; });
    }
    REQUIRE(all_finish_within(handles));
    for (const JoinHandle& handle : handles) CHECK(handle.join());
    CHECK(finished == tasks);
}

TEST_CASE("a_relay_of_tasks_passes_a_token_around_on_16_workers") {
    // Task i moves the token on when it holds i's turn; every pass wakes all of them.
    Runtime runtime{16};
    Producer<std::uint64_t> token{0};
    constexpr std::uint64_t runners = 32;
    constexpr std::uint64_t laps = 20;
    std::vector<std::uint64_t> turns(runners, 0);  // each written only by its own task
    std::vector<JoinHandle> handles;
    for (std::uint64_t i = 0; i < runners; ++i) {
        handles.push_back(runtime.spawn([&, i, consumer = token.consume()](const Waiter& waiter) -> Poll<Done> {
            for (;;) {
                if (turns[i] == laps) return Done{};
                auto mine = consumer.poll(waiter, [&](const std::uint64_t& value) -> std::optional<bool> {
                    if (value % runners == i && value / runners == turns[i]) return true;
                    return std::nullopt;
                });
                if (!mine.is_ready()) return Poll<Done>::pending();
                ++turns[i];
                token.modify([](std::uint64_t& value) { ++value; });
            }
        }));
    }
    REQUIRE(all_finish_within(handles));
    for (const JoinHandle& handle : handles) CHECK(handle.join());
    CHECK(token.read([](const std::uint64_t& value) { return value; }) == runners * laps);
    for (std::uint64_t i = 0; i < runners; ++i) CHECK(turns[i] == laps);
}

TEST_CASE("a_deadline_on_the_runtime_clock_wakes_its_task") {
    Runtime runtime{2};
    const auto started = runtime.clock().now();
    std::optional<moq::kio::Instant> woke;
    const JoinHandle handle = runtime.spawn([&, deadline = std::optional<Deadline>()](const Waiter& waiter) mutable {
        if (!deadline) {
            deadline.emplace(runtime.clock());
            deadline->after(20ms);
        }
        if (deadline->poll(waiter).is_pending()) return Poll<Done>::pending();
        woke = runtime.clock().now();
        return Poll<Done>(Done{});
    });
    REQUIRE(all_finish_within({handle}));
    CHECK(handle.join());
    REQUIRE(woke);
    CHECK(*woke - started >= 20ms);
}

TEST_CASE("a_task_spawns_tasks_and_waits_for_them") {
    Runtime runtime{4};
    static constexpr int children = 50;
    std::atomic<int> ran{0};
    Producer<int> done_count{0};
    const JoinHandle parent =
        runtime.spawn([&, spawned = false, consumer = done_count.consume()](const Waiter& waiter) mutable {
            if (!spawned) {
                spawned = true;
                for (int i = 0; i < children; ++i)
                    runtime.spawn([&](const Waiter&) {
                        ++ran;
                        done_count.modify([](int& value) { ++value; });
                        return Poll<Done>(Done{});
                    });
            }
            auto all = consumer.poll(waiter, [](const int& value) -> std::optional<int> {
                if (value == children) return value;
                return std::nullopt;
            });
            return all.is_ready() ? Poll<Done>(Done{}) : Poll<Done>::pending();
        });
    REQUIRE(all_finish_within({parent}));
    CHECK(parent.join());
    CHECK(ran == children);
}
