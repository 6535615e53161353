// One decider: every strategy makes its decisions through the same points as the
// explorer and a replay, so any run replays from its recorded decisions, an exploration
// reaches what a sweep draws, and each strategy's policy shows in what it chooses.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "kio/cell.hpp"
#include "kio/deadline.hpp"
#include "sim/choice_list.hpp"
#include "sim/executor.hpp"
#include "sim/explorer.hpp"
#include "sim/strategy.hpp"

using moq::kio::Deadline;
using moq::kio::Instant;
using moq::kio::Producer;
using moq::sim::ChoiceList;
using moq::sim::Decider;
using moq::sim::Decision;
using moq::sim::DecisionKind;
using moq::sim::DecisionPoint;
using moq::sim::Executor;
using moq::sim::Options;
using moq::sim::RunResult;
using moq::sim::StrategyKind;
using moq::sim::Task;
using namespace std::chrono_literals;

namespace {

// Waits until the cell holds at least `target`, as a task body does; `look` is reached
// before each poll.
int wait_for(Task& task, const moq::kio::Consumer<int>& cell, int target, const char* look = nullptr) {
    return task.wait([&](const moq::kio::Waiter& waiter) -> moq::kio::Poll<int> {
        if (look) task.schedule_point(look);
        auto answer = cell.poll(waiter, [target](const int& value) -> std::optional<int> {
            if (value >= target) return value;
            return std::nullopt;
        });
        if (answer.is_ready()) return answer.value();
        return moq::kio::Poll<int>::pending();
    });
}

// Every fault of the drive open, timers due together with inline wakes: a run that meets
// every kind of decision point.
Options open_world(std::uint64_t seed, StrategyKind kind) {
    Options options;
    options.seed = seed;
    options.strategy.kind = kind;
    options.spurious_polls = true;
    options.fresh_task_polls = true;
    options.clock_jumps = true;
    options.clock_jump_max = 2s;
    options.inline_wakes = true;
    options.wake_points = true;
    options.record_decisions = true;
    return options;
}

// Two sleepers due at one instant, a writer and a reader of a cell: picks, switches at
// schedule points, spurious and fresh polls, clock jumps and timer ties.
RunResult busy_run(Options options) {
    Executor executor{options};
    Producer<int> cell{0};
    for (int sleeper = 0; sleeper < 2; ++sleeper)
        executor.spawn("sleeper" + std::to_string(sleeper), [&](Task& task) {
            Deadline deadline{task.clock()};
            deadline.after(1s);
            task.wait([&](const moq::kio::Waiter& waiter) { return deadline.poll(waiter); });
            cell.modify([](int& value) { ++value; });
        });
    executor.spawn("reader", [consumer = cell.consume()](Task& task) { wait_for(task, consumer, 2, "reader.look"); });
    executor.spawn("writer", [&](Task& task) {
        for (int i = 0; i < 3; ++i) {
            task.schedule_point("writer.step");
            task.yield();
        }
    });
    return executor.run();
}

bool has_kind(const std::vector<Decision>& decisions, DecisionKind kind) {
    return std::any_of(decisions.begin(), decisions.end(),
                       [kind](const Decision& decision) { return decision.kind == kind; });
}

// A decision point of `kind` over `tasks` (the running task first for a preempt).
DecisionPoint point_over(DecisionKind kind, const std::vector<std::uint32_t>& tasks) {
    DecisionPoint point;
    point.kind = kind;
    point.options = static_cast<std::uint32_t>(tasks.size());
    point.costly = kind == DecisionKind::preempt;
    point.tasks = tasks.data();
    return point;
}

// The order in which a decider runs two tasks of `events` steps each, asked as the
// executor asks it: a pick among the tasks with steps left.
std::string interleaving(Decider& decider, int events) {
    int left[2] = {events, events};
    decider.spawned(0);
    decider.spawned(1);
    std::string order;
    while (left[0] + left[1] > 0) {
        std::vector<std::uint32_t> runnable;
        for (std::uint32_t task = 0; task < 2; ++task)
            if (left[task] > 0) runnable.push_back(task);
        const std::uint32_t chosen =
            runnable.size() == 1 ? 0 : decider.choose(point_over(DecisionKind::pick, runnable));
        --left[runnable[chosen]];
        order += runnable[chosen] == 0 ? 'a' : 'b';
    }
    return order;
}

}  // namespace

TEST_CASE("every_strategys_run_replays_from_its_recorded_decisions_to_the_same_digest") {
    for (const StrategyKind kind : moq::sim::strategies()) {
        CAPTURE(moq::sim::strategy_name(kind));
        std::set<DecisionKind> kinds;
        for (std::uint64_t seed = 1; seed <= 20; ++seed) {
            const RunResult swept = busy_run(open_world(seed, kind));
            REQUIRE(swept.ok());
            for (const Decision& decision : swept.decisions) kinds.insert(decision.kind);
            ChoiceList replay(swept.decisions);
            Options followed = open_world(seed, StrategyKind::fifo);
            followed.decider = &replay;
            const RunResult again = busy_run(followed);
            CHECK_FALSE(replay.diverged_at().has_value());
            CHECK(again.digest == swept.digest);
            CHECK(again.decisions.size() == swept.decisions.size());
        }
        // The run meets every kind of point, whatever decides it.
        CHECK(kinds.size() == 6);
    }
}

TEST_CASE("the_points_a_run_meets_do_not_depend_on_its_decider") {
    // The defaults of every point, taken by a list with no choice and by FIFO, meet the
    // same points with the same domains (FIFO draws its faults, so its faults stay off here).
    Options listed = open_world(3, StrategyKind::random);
    ChoiceList defaults({});
    listed.decider = &defaults;
    const RunResult by_list = busy_run(listed);
    Options in_order = open_world(3, StrategyKind::fifo);
    in_order.strategy.spurious_polls_per_1000 = 0;
    in_order.strategy.fresh_task_polls_per_1000 = 0;
    in_order.strategy.clock_jumps_per_1000 = 0;
    const RunResult by_fifo = busy_run(in_order);
    REQUIRE(by_list.decisions.size() == by_fifo.decisions.size());
    for (std::size_t i = 0; i < by_list.decisions.size(); ++i) {
        CAPTURE(i);
        CHECK(by_list.decisions[i].kind == by_fifo.decisions[i].kind);
        CHECK(by_list.decisions[i].options == by_fifo.decisions[i].options);
    }
    CHECK(by_list.digest == by_fifo.digest);
}

TEST_CASE("a_clock_jump_is_one_of_its_sizes_past_the_deadline") {
    CHECK(moq::sim::clock_jump_size(2s, 0) == 0ns);
    CHECK(moq::sim::clock_jump_size(2s, moq::sim::clock_jump_sizes) == 2s - 1ns);
    for (std::uint32_t choice = 0; choice <= moq::sim::clock_jump_sizes; ++choice) {
        CAPTURE(choice);
        Options options;
        options.clock_jumps = true;
        options.clock_jump_max = 2s;
        options.record_decisions = true;
        ChoiceList jump({Decision{DecisionKind::clock_jump, moq::sim::clock_jump_sizes + 1, choice, "clock"}});
        options.decider = &jump;
        Executor executor{options};
        Instant woke_at;
        executor.spawn("sleeper", [&](Task& task) {
            Deadline deadline{task.clock()};
            deadline.after(1s);
            task.wait([&](const moq::kio::Waiter& waiter) { return deadline.poll(waiter); });
            woke_at = task.clock().now();
        });
        const RunResult result = executor.run();
        REQUIRE(result.ok());
        CHECK_FALSE(jump.diverged_at().has_value());
        CHECK(woke_at == Instant{1s + moq::sim::clock_jump_size(2s, choice)});
        CHECK(result.costly_choices == (choice == 0 ? 0u : 1u));
    }
}

TEST_CASE("timers_due_together_wake_in_either_order_under_a_seeded_strategy") {
    // With inline wakes the order of two timers due at one instant shows; the random
    // strategy draws it, as an exploration tries both.
    std::set<std::string> orders;
    for (std::uint64_t seed = 1; seed <= 30 && orders.size() < 2; ++seed) {
        Options options;
        options.seed = seed;
        options.inline_wakes = true;
        Executor executor{options};
        std::string order;
        for (const char* name : {"a", "b"})
            executor.spawn(name, [&order, name](Task& task) {
                Deadline deadline{task.clock()};
                deadline.after(1s);
                task.wait([&](const moq::kio::Waiter& waiter) { return deadline.poll(waiter); });
                order += name;
            });
        REQUIRE(executor.run().ok());
        orders.insert(order);
    }
    CHECK(orders == std::set<std::string>{"ab", "ba"});
}

TEST_CASE("an_exploration_reaches_every_schedule_a_sweep_draws_within_its_bound") {
    // A sweep's run that left its defaults at most three times is one of the schedules an
    // exploration to bound 3 runs (without reductions, every schedule is run itself).
    std::map<StrategyKind, int> checked;
    for (const StrategyKind kind : moq::sim::strategies()) {
        for (std::uint64_t seed = 1; seed <= 100 && checked[kind] < 2; ++seed) {
            Options options = open_world(seed, kind);
            // Fewer open faults, so that more runs stay within the bound.
            options.clock_jumps = false;
            options.fresh_task_polls = false;
            options.spurious_polls = false;
            const RunResult swept = busy_run(options);
            if (swept.costly_choices > 3) continue;
            std::set<std::uint64_t> explored;
            moq::sim::ExploreOptions exploring;
            exploring.bound = 3;
            exploring.sleep_sets = false;
            exploring.state_caching = false;
            exploring.keep_going = true;
            moq::sim::ExploreState state;
            moq::sim::explore(
                [&](Decider& decider) {
                    Options decided = options;
                    decided.decider = &decider;
                    const RunResult run = busy_run(decided);
                    explored.insert(run.digest);
                    return moq::sim::RunVerdict{run.ok(), run.message, run.digest};
                },
                exploring, state);
            CAPTURE(moq::sim::strategy_name(kind));
            CAPTURE(seed);
            CHECK(explored.count(swept.digest) == 1);
            ++checked[kind];
        }
    }
    for (const StrategyKind kind : moq::sim::strategies()) CHECK(checked[kind] > 0);
}

TEST_CASE("surw_samples_the_interleavings_of_two_tasks_about_uniformly_where_a_random_walk_does_not") {
    // Two tasks of three events each: 20 interleavings. SURW, told each task's events,
    // draws each about as often; a random walk favours those that finish one task early.
    std::map<std::string, int> by_surw;
    std::map<std::string, int> by_walk;
    constexpr int runs = 20000;
    for (std::uint64_t seed = 1; seed <= runs; ++seed) {
        moq::sim::StrategyOptions surw;
        surw.kind = StrategyKind::surw;
        surw.task_events = {3, 3};
        ++by_surw[interleaving(*moq::sim::make_strategy(surw, moq::sim::Random(seed)), 3)];
        moq::sim::StrategyOptions walk;
        walk.kind = StrategyKind::random;
        ++by_walk[interleaving(*moq::sim::make_strategy(walk, moq::sim::Random(seed)), 3)];
    }
    REQUIRE(by_surw.size() == 20);
    const auto [fewest, most] = std::minmax_element(by_surw.begin(), by_surw.end(),
                                                    [](const auto& a, const auto& b) { return a.second < b.second; });
    CHECK(fewest->second > runs / 20 * 8 / 10);  // each within 20% of 1,000
    CHECK(most->second < runs / 20 * 12 / 10);
    CHECK(by_walk["aaabbb"] > runs / 20 * 2);  // a random walk: 1/8 of the runs, not 1/20
}

TEST_CASE("pos_switches_at_a_schedule_point_only_where_it_draws_the_priorities_again") {
    const auto switches = [](std::uint32_t redraw_per_1000, std::uint64_t seed) {
        Options options;
        options.seed = seed;
        options.strategy.kind = StrategyKind::pos;
        options.strategy.pos_redraw_per_1000 = redraw_per_1000;
        Executor executor{options};
        std::string order;
        for (const char* name : {"a", "b"})
            executor.spawn(name, [&order, name](Task& task) {
                for (int point = 0; point < 10; ++point) {
                    order += name;
                    task.schedule_point("walk");
                }
            });
        REQUIRE(executor.run().ok());
        int changes = 0;
        for (std::size_t i = 1; i < order.size(); ++i) changes += order[i] != order[i - 1] ? 1 : 0;
        return changes;
    };
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        CAPTURE(seed);
        CHECK(switches(0, seed) == 1);  // the higher priority runs to its end, then the other
    }
    int redrawn = 0;
    for (std::uint64_t seed = 1; seed <= 20; ++seed) redrawn += switches(1000, seed);
    CHECK(redrawn > 20 * 4);  // a fresh draw at every point: a switch at about half of them
}

TEST_CASE("a_fault_the_world_opens_is_drawn_at_the_strategys_rate") {
    const auto spurious_polls = [](std::uint32_t per_1000) {
        Options options;
        options.spurious_polls = true;
        options.strategy.spurious_polls_per_1000 = per_1000;
        options.record_decisions = true;
        Executor executor{options};
        Producer<int> cell{0};
        executor.spawn("reader", [consumer = cell.consume()](Task& task) { wait_for(task, consumer, 1); });
        executor.spawn("writer", [&](Task& task) {
            for (int i = 0; i < 50; ++i) task.yield();
            cell.modify([](int& value) { value = 1; });
        });
        const RunResult result = executor.run();
        REQUIRE(result.ok());
        REQUIRE(has_kind(result.decisions, DecisionKind::spurious_poll));
        return std::count_if(result.decisions.begin(), result.decisions.end(), [](const Decision& decision) {
            return decision.kind == DecisionKind::spurious_poll && decision.choice != 0;
        });
    };
    CHECK(spurious_polls(0) == 0);
    CHECK(spurious_polls(1000) >= 40);  // every step while the reader is parked
}
