// The executor's own tests: wakes, fairness, strategies, failure reports, time.
#include <doctest/doctest.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kio/cell.hpp"
#include "kio/clock.hpp"
#include "kio/deadline.hpp"
#include "sim/executor.hpp"
#include "util/assert.hpp"
#include "util/mutation.hpp"

using moq::kio::Consumer;
using moq::kio::Deadline;
using moq::kio::Instant;
using moq::kio::Producer;
using moq::sim::Executor;
using moq::sim::Options;
using moq::sim::Outcome;
using moq::sim::StrategyKind;
using moq::sim::Task;
using namespace std::chrono_literals;

namespace {

Options with(StrategyKind kind, std::uint64_t seed = 1) {
    Options options;
    options.seed = seed;
    options.strategy.kind = kind;
    return options;
}

// Ready once the cell holds at least `target`.
auto at_least(int target) {
    return [target](const int& value) -> std::optional<int> {
        if (value >= target) return value;
        return std::nullopt;
    };
}

// Waits on a cell the way a task body does.
int wait_for(Task& task, const Consumer<int>& cell, int target) {
    return task.wait([&](const moq::kio::Waiter& waiter) -> moq::kio::Poll<int> {
        auto answer = cell.poll(waiter, at_least(target));
        if (answer.is_ready()) return answer.value();
        return moq::kio::Poll<int>::pending();
    });
}

}  // namespace

TEST_CASE("a_task_woken_several_times_while_runnable_runs_once") {
    Executor executor{with(StrategyKind::fifo)};
    Producer<int> cell{0};
    int polls = 0;
    executor.spawn("reader", [&, consumer = cell.consume()](Task& task) {
        task.wait([&](const moq::kio::Waiter& waiter) -> moq::kio::Poll<int> {
            ++polls;
            auto answer = consumer.poll(waiter, at_least(3));
            if (answer.is_ready()) return answer.value();
            return moq::kio::Poll<int>::pending();
        });
    });
    executor.spawn("writer", [&](Task&) {
        // Three writes in one turn: the reader is woken once, then deduplicated twice.
        for (int i = 0; i < 3; ++i) cell.modify([](int& value) { ++value; });
    });
    const auto result = executor.run();
    CHECK(result.outcome == Outcome::finished);
    CHECK(polls == 2);  // parked once, then ready
}

TEST_CASE("fifo_runs_yielding_tasks_in_turn") {
    Executor executor{with(StrategyKind::fifo)};
    std::string order;
    for (const char name : {'a', 'b', 'c'}) {
        executor.spawn(std::string(1, name), [&, name](Task& task) {
            for (int i = 0; i < 3; ++i) {
                order.push_back(name);
                task.yield();
            }
        });
    }
    CHECK(executor.run().outcome == Outcome::finished);
    CHECK(order == "abcabcabc");
}

namespace {

// A depth-2 ordering bug: it shows only if A runs first and B runs exactly between A's
// two writes (one priority order, one preemption).
bool toy_bug_found(StrategyKind kind, std::uint64_t seed) {
    Options options = with(kind, seed);
    options.strategy.pct_depth = 2;
    options.strategy.pct_steps = 12;
    Executor executor{options};
    int x = 0;
    bool bug = false;
    executor.spawn("a", [&](Task& task) {
        task.schedule_point("a.start");
        x = 1;
        task.schedule_point("a.between");
        x = 0;
        task.schedule_point("a.end");
    });
    executor.spawn("b", [&](Task& task) {
        task.schedule_point("b.start");
        if (x == 1) bug = true;
        task.schedule_point("b.end");
    });
    REQUIRE(executor.run().ok());
    return bug;
}

}  // namespace

TEST_CASE("pct_finds_a_depth_two_bug_within_its_bound") {
    // With 2 tasks and about 12 steps, PCT at depth 2 finds it with probability at
    // least 1/24 per run: 200 seeds miss it with probability below 0.0003.
    int first_seed = 0;
    for (std::uint64_t seed = 1; seed <= 200 && first_seed == 0; ++seed)
        if (toy_bug_found(StrategyKind::pct, seed)) first_seed = static_cast<int>(seed);
    CHECK(first_seed != 0);
    // FIFO never preempts, so it never interleaves the two tasks.
    for (std::uint64_t seed = 1; seed <= 50; ++seed) CHECK_FALSE(toy_bug_found(StrategyKind::fifo, seed));
}

TEST_CASE("a_cell_nobody_writes_is_reported_as_a_deadlock") {
    Executor executor{with(StrategyKind::random)};
    Producer<int> cell{0};
    executor.spawn("reader", [consumer = cell.consume()](Task& task) { wait_for(task, consumer, 1); });
    const auto result = executor.run();
    CHECK(result.outcome == Outcome::deadlock);
    CHECK(result.message.find("reader") != std::string::npos);
    const std::string report = result.report("moqsim replay --suite gate --seed 1 --case 0");
    CHECK(report.find("seed 1") != std::string::npos);
    CHECK(report.find("replay: moqsim replay --suite gate --seed 1 --case 0") != std::string::npos);
}

TEST_CASE("a_task_that_never_parks_hits_the_step_budget") {
    Options options = with(StrategyKind::random);
    options.max_steps = 500;
    Executor executor{options};
    executor.spawn("spinner", [](Task& task) {
        for (;;) task.yield();
    });
    const auto result = executor.run();
    CHECK(result.outcome == Outcome::livelock);
    CHECK(result.steps == 501);
}

TEST_CASE("timers_that_keep_firing_with_no_task_to_run_end_as_a_livelock") {
    // Polled only inline from its own timer, which it re-arms a nanosecond ahead on every
    // poll, the task never takes a step: the step budget cannot end this run, and the
    // time budget only after a million moves of the clock. The bound on moves in a row
    // without a step ends it first.
    Options options = with(StrategyKind::fifo);
    options.inline_wakes = true;
    options.max_advances_without_step = 1000;
    options.max_time = 1ms;
    Executor executor{options};
    executor.spawn("rearming", [](Task& task) {
        Deadline deadline{task.clock()};
        task.wait([&](const moq::kio::Waiter& waiter) -> moq::kio::Poll<int> {
            deadline.after(1ns);
            static_cast<void>(deadline.poll(waiter));
            return moq::kio::Poll<int>::pending();
        });
    });
    const auto result = executor.run();
    CHECK(result.outcome == Outcome::livelock);
    CHECK(result.message.find("more than 1000 times in a row") != std::string::npos);
    CHECK(result.time < Instant{2us});
}

TEST_CASE("a_deadline_due_now_that_fires_nothing_ends_as_a_livelock" *
          doctest::skip(!moq::mutation::mutants_enabled())) {
    // A timer queue that skips a deadline equal to now (its site switched off, in a
    // mutants build) leaves the sleeper's deadline pending once the clock reached it: the
    // clock cannot move on and nothing can run. A failure with its replay, not a hang.
    REQUIRE(moq::mutation::set_active_mutant("timers.fire.due_now"));
    struct SwitchBackOn {
        ~SwitchBackOn() { moq::mutation::set_active_mutant(""); }
    } switch_back_on;
    Executor executor{with(StrategyKind::random)};
    executor.spawn("sleeper", [](Task& task) {
        Deadline deadline{task.clock()};
        deadline.after(5s);
        task.wait([&](const moq::kio::Waiter& waiter) { return deadline.poll(waiter); });
    });
    const auto result = executor.run();
    CHECK(result.outcome == Outcome::livelock);
    CHECK(result.message.find("advancing the clock fired nothing") != std::string::npos);
    CHECK(result.time == Instant{5s});
    const std::string report = result.report("moqsim replay --suite gate --seed 1 --case 0");
    CHECK(report.find("moqsim: livelock: ") == 0);
    CHECK(report.find("replay: moqsim replay --suite gate --seed 1 --case 0") != std::string::npos);
}

TEST_CASE("time_jumps_to_the_next_deadline") {
    Executor executor{with(StrategyKind::random)};
    Instant woke_at;
    executor.spawn("sleeper", [&](Task& task) {
        Deadline deadline{task.clock()};
        deadline.after(5s);
        task.wait([&](const moq::kio::Waiter& waiter) { return deadline.poll(waiter); });
        woke_at = task.clock().now();
    });
    const auto result = executor.run();
    CHECK(result.outcome == Outcome::finished);
    CHECK(woke_at == Instant{5s});
    CHECK(result.steps == 2);
}

TEST_CASE("a_clock_jump_fault_overshoots_the_deadline") {
    Options options = with(StrategyKind::random);
    options.clock_jumps = true;
    options.strategy.clock_jumps_per_1000 = 1000;
    options.clock_jump_max = 2s;
    Instant woke_at;
    bool overshot = false;
    for (std::uint64_t seed = 1; seed <= 5 && !overshot; ++seed) {
        options.seed = seed;
        Executor executor{options};
        executor.spawn("sleeper", [&](Task& task) {
            Deadline deadline{task.clock()};
            deadline.after(1s);
            task.wait([&](const moq::kio::Waiter& waiter) { return deadline.poll(waiter); });
            woke_at = task.clock().now();
        });
        REQUIRE(executor.run().ok());
        overshot = woke_at > Instant{1s};
        CHECK(woke_at < Instant{3s});
    }
    CHECK(overshot);
}

TEST_CASE("a_missed_wake_is_declared_by_the_quiescence_check") {
    Executor executor{with(StrategyKind::fifo)};  // the reader parks before the write
    Producer<int> cell{0};
    bool read = false;
    executor.spawn("reader", [&, consumer = cell.consume()](Task& task) {
        wait_for(task, consumer, 1);
        read = true;
    });
    // A write that forgets to wake: the reader stays parked with something to read.
    executor.spawn("writer", [&](Task&) { cell.modify_quietly([](int& value) { value = 1; }); });
    executor.on_quiescence([&]() -> std::optional<std::string> {
        const int value = cell.read([](const int& v) { return v; });
        if (value >= 1 && !read) return std::string("reader parked with a value to read");
        return std::nullopt;
    });
    const auto result = executor.run();
    CHECK(result.outcome == Outcome::missed_wake);
    CHECK(result.message == "reader parked with a value to read");
}

TEST_CASE("a_task_that_throws_is_a_reported_failure") {
    Executor executor{with(StrategyKind::fifo)};
    executor.spawn("thrower", [](Task&) { throw std::runtime_error("boom"); });
    const auto result = executor.run();
    CHECK(result.outcome == Outcome::task_failed);
    CHECK(result.message.find("boom") != std::string::npos);
}

TEST_CASE("the_same_seed_gives_the_same_digest") {
    auto digest_of = [](std::uint64_t seed) {
        Options options = with(StrategyKind::random, seed);
        options.spurious_polls = true;
        options.strategy.spurious_polls_per_1000 = 200;
        Executor executor{options};
        Producer<int> cell{0};
        for (int r = 0; r < 3; ++r)
            executor.spawn("reader" + std::to_string(r),
                           [consumer = cell.consume()](Task& task) { wait_for(task, consumer, 4); });
        for (int w = 0; w < 2; ++w)
            executor.spawn("writer" + std::to_string(w), [&](Task& task) {
                for (int i = 0; i < 2; ++i) {
                    cell.modify([](int& value) { ++value; });
                    task.yield();
                }
            });
        const auto result = executor.run();
        REQUIRE(result.outcome == Outcome::finished);
        return result.digest;
    };
    CHECK(digest_of(7) == digest_of(7));
    CHECK(digest_of(7) != digest_of(8));
}

TEST_CASE("wakes_to_a_retired_identity_reach_nobody") {
    // A reader that keeps registering the waiter of its first poll breaks "only the
    // waker of the most recent poll must be woken": polled from a fresh task, it is
    // never woken again.
    Options options = with(StrategyKind::fifo);
    options.fresh_task_polls = true;
    options.strategy.fresh_task_polls_per_1000 = 1000;
    Executor executor{options};
    Producer<int> cell{0};
    std::optional<moq::kio::Waiter> first;
    executor.spawn("stale_reader", [&, consumer = cell.consume()](Task& task) {
        task.wait([&](const moq::kio::Waiter& waiter) -> moq::kio::Poll<int> {
            if (!first) first.emplace(waiter);
            auto answer = consumer.poll(*first, at_least(2));
            if (answer.is_ready()) return answer.value();
            return moq::kio::Poll<int>::pending();
        });
    });
    executor.spawn("writer", [&](Task& task) {
        cell.modify([](int& value) { value = 1; });  // wakes the first identity: still current
        task.yield();
        cell.modify([](int& value) { value = 2; });  // the reader polled anew: retired
    });
    CHECK(executor.run().outcome == Outcome::deadlock);
    first.reset();
}

TEST_CASE("wakers_kept_past_the_executor_wake_nothing") {
    // Wakers of every identity a task polled with, the old ones too, are kept past the
    // executor's life (declared before it): waking them then must touch nothing of it
    // (a use after free, which ASan reports, if an old identity still points at it).
    Options options = with(StrategyKind::fifo);
    options.fresh_task_polls = true;
    options.strategy.fresh_task_polls_per_1000 = 1000;  // every poll from a new identity
    std::vector<moq::kio::Waker> kept;
    auto executor = std::make_unique<Executor>(options);
    executor->spawn("reader", [&](Task& task) {
        for (int i = 0; i < 3; ++i) {
            task.wait([&](const moq::kio::Waiter& waiter) -> moq::kio::Poll<int> {
                kept.push_back(waiter.waker());
                return i;
            });
        }
    });
    REQUIRE(executor->run().outcome == Outcome::finished);
    CHECK(executor->task_stats(0).fresh_polls == 3);
    executor.reset();
    REQUIRE(kept.size() == 3);
    for (const moq::kio::Waker& waker : kept) waker.wake();
}

TEST_CASE("an_inline_wake_polls_the_parked_task_before_the_waker_returns") {
    Options options = with(StrategyKind::fifo);
    options.inline_wakes = true;
    Executor executor{options};
    Producer<int> cell{0};
    std::string order;
    executor.spawn("reader", [&, consumer = cell.consume()](Task& task) {
        wait_for(task, consumer, 1);
        order += "read ";
    });
    executor.spawn("writer", [&](Task&) {
        cell.modify([](int& value) { value = 1; });
        order += "written ";
    });
    const auto result = executor.run();
    CHECK(result.outcome == Outcome::finished);
    // The reader ran inside the write's wake, on the writer's fiber.
    CHECK(order == "read written ");
    CHECK(result.steps == 2);
}

TEST_CASE("an_inline_wake_of_a_task_that_is_polling_records_a_re_poll") {
    // The reader wakes itself from inside its own poll (its waker runs while it polls):
    // no nested poll, one more poll once this one parks.
    Options options = with(StrategyKind::fifo);
    options.inline_wakes = true;
    Executor executor{options};
    int polls = 0;
    executor.spawn("reader", [&](Task& task) {
        task.wait([&](const moq::kio::Waiter& waiter) -> moq::kio::Poll<int> {
            if (++polls == 1) {
                waiter.waker().wake();
                return moq::kio::Poll<int>::pending();
            }
            return polls;
        });
    });
    CHECK(executor.run().outcome == Outcome::finished);
    CHECK(polls == 2);
}

TEST_CASE("wake_points_switch_tasks_only_when_asked_for") {
    // The same run with a wake point added: left out, it draws nothing from the seed
    // (same digest as without it); asked for, the strategy may preempt there.
    auto run = [](bool point, bool wake_points, std::uint64_t seed) {
        Options options = with(StrategyKind::random, seed);
        options.wake_points = wake_points;
        options.keep_trace = true;
        Executor executor{options};
        for (const char* name : {"a", "b"})
            executor.spawn(name, [point](Task& task) {
                for (int i = 0; i < 4; ++i) {
                    if (point) task.schedule_point("wake.test");
                    task.schedule_point("walk.test");
                }
            });
        const auto result = executor.run();
        bool preempted_at_wake = false;
        for (const moq::sim::TraceEntry& entry : executor.trace().entries())
            preempted_at_wake =
                preempted_at_wake || (entry.kind == moq::sim::EventKind::preempt && entry.name == "wake.test");
        return std::pair{result.digest, preempted_at_wake};
    };
    bool ever_preempted = false;
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        CHECK(run(true, false, seed).first == run(false, false, seed).first);
        CHECK_FALSE(run(true, false, seed).second);
        ever_preempted = ever_preempted || run(true, true, seed).second;
    }
    CHECK(ever_preempted);
}

TEST_CASE("a_core_assertion_in_a_task_fails_that_run_with_its_message") {
    Executor executor{with(StrategyKind::fifo)};
    executor.spawn("asserter", [](Task&) { MOQ_ASSERT_EQ(1, 2); });
    const auto result = executor.run();
    CHECK(result.outcome == Outcome::task_failed);
    CHECK(result.message.find("moq assertion failed at") != std::string::npos);
    CHECK(result.message.find("1 == 2 (left: 1, right: 2)") != std::string::npos);
}

TEST_CASE("a_task_parked_in_wait_until_over_returns_when_the_run_is_over") {
    // Its wait answers the value while the run goes on, and nothing once it is over:
    // the code after it runs, no exception unwinds it.
    bool returned = false;
    std::optional<int> first;
    {
        Executor executor{with(StrategyKind::fifo)};
        executor.spawn("reader", [&](Task& task) {
            first = task.wait_until_over([](const moq::kio::Waiter&) { return moq::kio::Poll<int>(5); });
            const auto never = task.wait_until_over(
                [](const moq::kio::Waiter&) -> moq::kio::Poll<int> { return moq::kio::Poll<int>::pending(); });
            returned = !never.has_value();
        });
        CHECK(executor.run().outcome == Outcome::deadlock);
        CHECK_FALSE(returned);
    }
    CHECK(first == 5);
    CHECK(returned);
}
