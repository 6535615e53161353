// The executor's side of the sync points (core/kio/sync.hpp): this file builds the atomics
// and locks as the runtime's simulated variant does, so every operation may switch tasks
// and a lock another task holds parks the caller.
#define MOQ_SYNC_POINTS 1

#include <doctest/doctest.h>

#include <mutex>
#include <set>

#include "kio/cell.hpp"
#include "kio/core_lock.hpp"
#include "kio/sync.hpp"
#include "sim/choice_list.hpp"
#include "sim/executor.hpp"

using moq::sim::Executor;
using moq::sim::Options;
using moq::sim::Outcome;
using moq::sim::StrategyKind;
using moq::sim::Task;

namespace {

Options random_run(std::uint64_t seed) {
    Options options;
    options.seed = seed;
    options.strategy.kind = StrategyKind::random;
    return options;
}

struct Increments {
    std::set<int> totals;      // what the seeds' runs ended with
    int runs_with_a_wait = 0;  // runs where a task found the lock held
};

// Two tasks add one each to a counter: as a load then a store, or the same under a lock.
// What the seeds 1 to 200 end with.
Increments two_increments(bool locked) {
    Increments seen;
    for (std::uint64_t seed = 1; seed <= 200; ++seed) {
        moq::kio::Atomic<int> counter{"test.counter", 0};
        moq::kio::Mutex mutex{"test.lock"};
        Options options = random_run(seed);
        options.keep_trace = true;
        Executor executor{options};
        for (const char* name : {"a", "b"}) {
            executor.spawn(name, [&](Task&) {
                std::unique_lock lock(mutex, std::defer_lock);
                if (locked) lock.lock();
                const int before = counter.load();
                counter.store(before + 1);
            });
        }
        REQUIRE(executor.run().outcome == Outcome::finished);
        seen.totals.insert(counter.load());
        for (const moq::sim::TraceEntry& entry : executor.trace().entries()) {
            if (entry.kind == moq::sim::EventKind::preempt && entry.name == "blocked") {
                ++seen.runs_with_a_wait;
                break;
            }
        }
    }
    return seen;
}

}  // namespace

TEST_CASE("sync_points_let_a_load_and_store_lose_an_update_that_a_lock_keeps") {
    // The switch between the load and the store loses one increment in some runs...
    const Increments racing = two_increments(false);
    CHECK(racing.totals == std::set<int>{1, 2});
    CHECK(racing.runs_with_a_wait == 0);
    // ...and a lock held across those points parks the other task until it is released.
    const Increments locked = two_increments(true);
    CHECK(locked.totals == std::set<int>{2});
    CHECK(locked.runs_with_a_wait > 0);
}

// A switch under a core lock would leave the lock held by a task that is not running: the
// point fails its assertion, and the failure reaches the run as the task's (the atomics of
// the simulated variant are not noexcept, so the assertion does not end the process).
TEST_CASE("a_sync_point_under_a_core_lock_fails_its_task_and_names_the_point") {
    moq::kio::Atomic<int> counter{"test.counter", 0};
    std::mutex core_mutex;
    Executor executor{random_run(1)};
    executor.spawn("locked", [&](Task&) {
        const moq::kio::CoreLock lock(core_mutex, moq::kio::LockLevel::cell);
        static_cast<void>(counter.load());
    });
    const moq::sim::RunResult result = executor.run();
    CHECK(result.outcome == Outcome::task_failed);
    CHECK(result.message.find("sync point 'test.counter' reached while this thread holds 1 core lock(s)") !=
          std::string::npos);
    CHECK(moq::kio::core_locks_held() == 0);
}

TEST_CASE("a_task_parked_on_a_lock_at_the_end_is_a_deadlock_and_an_abandoned_run_keeps_its_fibers") {
    // The abandoned fibers hold the lock for ever: it must outlive them.
    auto* mutex = new moq::kio::Mutex("test.lock");
    moq::kio::Producer<int> never{0};
    const std::size_t abandoned = Executor::abandoned_runs();
    bool held = false;
    {
        Options options = random_run(1);
        options.abandon_unfinished = true;
        // Parks count as quiet, but not a park on a lock.
        options.parked_at_quiescence_is_quiet = true;
        options.keep_trace = true;
        Executor executor{options};
        executor.spawn("holder", [&, input = never.consume()](Task& task) {
            mutex->lock();
            held = true;
            task.wait([&](const moq::kio::Waiter& waiter) {
                return input.poll(waiter, [](const int& value) -> std::optional<int> {
                    if (value > 0) return value;
                    return std::nullopt;
                });
            });
        });
        const std::uint32_t contender = executor.spawn("contender", [&](Task& task) {
            while (!held) task.yield();
            mutex->lock();
        });
        const moq::sim::RunResult result = executor.run();
        CHECK(result.outcome == Outcome::deadlock);
        CHECK(result.message.find("waits for a lock no task will release: contender") != std::string::npos);
        // The contender was switched away where the lock stopped it.
        bool blocked = false;
        for (const moq::sim::TraceEntry& entry : executor.trace().entries())
            blocked = blocked || (entry.kind == moq::sim::EventKind::preempt && entry.task == contender &&
                                  std::string(entry.name) == "blocked");
        CHECK(blocked);
        CHECK(executor.unfinished_tasks() == 2);
    }
    CHECK(Executor::abandoned_runs() == abandoned + 1);
}

// A task that waits in a spin for another (kio::sync_yield) must let it run, whatever the
// strategy: PCT runs the task of highest priority for ever, and an exploration's default
// keeps the running task, so a yield that only stayed runnable would spin to the step
// budget. The spinner is held back until another task has taken a step.
TEST_CASE("a_spinning_task_lets_the_one_it_waits_for_run_under_every_strategy") {
    const auto spin_run = [](Options options) {
        moq::kio::Atomic<bool> flag{"test.flag", false};
        int spins = 0;
        Executor executor{options};
        executor.spawn("spinner", [&](Task&) {
            while (!flag.load()) {
                ++spins;
                moq::kio::sync_yield();
            }
        });
        executor.spawn("setter", [&](Task& task) {
            task.yield();
            task.yield();
            flag.store(true);
        });
        const moq::sim::RunResult result = executor.run();
        CHECK_MESSAGE(result.outcome == Outcome::finished, result.message);
        return spins;
    };
    for (std::uint64_t seed = 1; seed <= 50; ++seed) {
        for (const StrategyKind kind : moq::sim::strategies()) {
            Options options = random_run(seed);
            options.strategy.kind = kind;
            options.max_steps = 1000;
            // The setter steps three times, and the spinner looks once between its steps at most.
            CHECK_LE(spin_run(options), 4);
        }
    }
    moq::sim::ChoiceList defaults{{}};
    Options explored;
    explored.decider = &defaults;
    explored.max_steps = 1000;
    CHECK_LE(spin_run(explored), 4);
}
