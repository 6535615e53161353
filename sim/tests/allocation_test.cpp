// The executor's pick, wake and park paths allocate nothing per step: the allocations of
// a run (with the digest, no kept trace) do not grow with its steps. This program counts
// every call of the global operator new, so it is a program of its own.
#include <doctest/doctest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <optional>
#include <utility>

#include "kio/poll.hpp"
#include "kio/waiter.hpp"
#include "sim/executor.hpp"

namespace {

std::atomic<std::uint64_t> allocations{0};

}  // namespace

void* operator new(std::size_t size) {
    allocations.fetch_add(1, std::memory_order_relaxed);
    if (void* memory = std::malloc(size == 0 ? 1 : size)) return memory;
    throw std::bad_alloc();
}
void operator delete(void* memory) noexcept { std::free(memory); }
void operator delete(void* memory, std::size_t) noexcept { std::free(memory); }

namespace {

using moq::sim::Executor;
using moq::sim::Options;
using moq::sim::Task;

// Two tasks hand a turn back and forth `rounds` times: each parks until the other wakes
// it, with a schedule point inside every poll (a preemption there is a pick too) and the
// turn-taker yielding between turns. Returns the allocations made during run().
std::uint64_t allocations_of_run(std::uint64_t rounds, Options options) {
    Executor executor{std::move(options)};
    int turn = 0;
    std::optional<moq::kio::Waker> parked[2];
    for (int me = 0; me < 2; ++me) {
        executor.spawn(me == 0 ? "ping" : "pong", [&, me](Task& task) {
            for (std::uint64_t i = 0; i < rounds; ++i) {
                task.wait([&](const moq::kio::Waiter& waiter) -> moq::kio::Poll<int> {
                    task.schedule_point("walk.turn");
                    if (turn != me) {
                        parked[me] = waiter.waker();
                        return moq::kio::Poll<int>::pending();
                    }
                    return me;
                });
                turn = 1 - me;
                if (parked[1 - me]) parked[1 - me]->wake();
                task.yield();
            }
        });
    }
    const std::uint64_t before = allocations.load();
    const auto result = executor.run();
    const std::uint64_t during = allocations.load() - before;
    REQUIRE(result.ok());
    REQUIRE(result.steps >= 2 * rounds);
    for (auto& waker : parked) waker.reset();
    return during;
}

}  // namespace

TEST_CASE("a_run_allocates_nothing_per_step") {
    for (const auto kind :
         {moq::sim::StrategyKind::fifo, moq::sim::StrategyKind::random, moq::sim::StrategyKind::pct}) {
        for (const bool inlined : {false, true}) {
            Options options;
            options.seed = 3;
            options.strategy.kind = kind;
            options.spurious_polls = true;
            options.strategy.spurious_polls_per_1000 = 200;  // the parked-task pick
            options.inline_wakes = inlined;
            options.wake_points = inlined;
            const std::uint64_t short_run = allocations_of_run(50, options);
            const std::uint64_t long_run = allocations_of_run(2000, options);
            INFO("strategy " << moq::sim::strategy_name(kind) << (inlined ? ", inline wakes" : ""));
            CHECK(long_run == short_run);
        }
    }
}

TEST_CASE("the_counter_sees_an_allocation") {
    // The check above could not fail if this program's operator new went uncounted.
    const std::uint64_t before = allocations.load();
    // Through a volatile pointer: a new-expression whose pointer does not escape may be
    // left out altogether (clang does, at -O2).
    int* volatile kept = new int(7);
    CHECK(allocations.load() == before + 1);
    delete kept;
}
