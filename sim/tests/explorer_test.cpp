// The explorer on toy programs whose schedules are counted by hand: the preemption
// bound, sleep sets, and replaying a failing schedule from its decisions.
#include <doctest/doctest.h>

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "sim/choice_list.hpp"
#include "sim/executor.hpp"
#include "sim/explorer.hpp"

using moq::sim::ChoiceList;
using moq::sim::Decider;
using moq::sim::Executor;
using moq::sim::ExploreOptions;
using moq::sim::ExploreState;
using moq::sim::ExploreTotals;
using moq::sim::Options;
using moq::sim::RunVerdict;
using moq::sim::Task;

namespace {

// Runs the program, then asks `violation` what went wrong, if anything.
RunVerdict judged(Executor& executor, const std::function<std::string()>& violation) {
    const moq::sim::RunResult result = executor.run();
    if (!result.ok()) return RunVerdict{false, std::string(moq::sim::outcome_name(result.outcome)), result.digest};
    std::string found = violation();
    return RunVerdict{found.empty(), std::move(found), executor.trace().digest()};
}

// Two tasks add one to a counter by reading it, a schedule point, then writing it: the
// update is lost only when one task is switched away between its read and its write.
// With `with_state`, the program gives its state (the counter and what each task read).
RunVerdict lost_update(Decider& decider, bool with_state = false) {
    Options options;
    options.decider = &decider;
    Executor executor(options);
    int counter = 0;
    int reads[2] = {-1, -1};
    for (int which = 0; which < 2; ++which)
        executor.spawn(which == 0 ? "a" : "b", [&counter, &reads, which](Task& task) {
            reads[which] = counter;
            task.schedule_point("between read and write", &counter);
            counter = reads[which] + 1;
        });
    if (with_state)
        executor.on_state(
            [&] { return std::uint64_t(counter) << 32 | std::uint64_t(reads[0] + 1) << 16 | (reads[1] + 1); });
    return judged(executor, [&counter] {
        return counter == 2 ? std::string() : "lost update: counter " + std::to_string(counter);
    });
}

RunVerdict lost_update_unstated(Decider& decider) { return lost_update(decider); }

ExploreTotals explore_with(const std::function<RunVerdict(Decider&)>& run, std::uint32_t bound, bool sleep_sets,
                           ExploreState& state, bool keep_going = true, bool caching = true) {
    ExploreOptions options;
    options.bound = bound;
    options.sleep_sets = sleep_sets;
    options.state_caching = caching;
    options.keep_going = keep_going;
    return explore(run, options, state);
}

// Each of two tasks takes `points` steps on an object of its own. With `shared`, the last
// two steps of each touch one shared object instead, and the run fails when b's come
// between a's two.
// `orders` collects the order of the shared steps of every run. With `moving`, the objects
// are at another address in every run.
struct WalkObjects {
    int own[2] = {0, 0};
    int common = 0;
};

// A run's objects at an address no earlier run's had (those are kept), as a program's
// objects on the heap land elsewhere from run to run.
WalkObjects& objects_elsewhere() {
    static std::vector<std::unique_ptr<WalkObjects>> every_run;
    every_run.push_back(std::make_unique<WalkObjects>());
    return *every_run.back();
}

RunVerdict two_walks(Decider& decider, int points, bool shared, std::set<std::string>* orders = nullptr,
                     bool with_state = false, bool moving = false) {
    Options options;
    options.decider = &decider;
    // The program names all it shares (the order string changes only on the common steps),
    // so a task's start and end need not make a step's footprint unknown.
    options.footprints_complete = moving;
    Executor executor(options);
    WalkObjects on_stack;
    WalkObjects& objects = moving ? objects_elsewhere() : on_stack;
    auto& own = objects.own;
    int& common = objects.common;
    std::string order;
    for (int which = 0; which < 2; ++which)
        executor.spawn(which == 0 ? "a" : "b", [&, which](Task& task) {
            for (int point = 0; point < points; ++point) {
                const bool on_common = shared && point >= points - 2;
                task.schedule_point("walk", on_common ? static_cast<const void*>(&common) : &own[which]);
                if (on_common) order += which == 0 ? 'a' : 'b';
                ++own[which];
            }
            task.schedule_point("done", &own[which]);
        });
    // The state: each task's progress and the order of the shared steps so far.
    if (with_state)
        executor.on_state([&] {
            return std::hash<std::string>{}(order) ^ (std::uint64_t(own[0]) << 40 | std::uint64_t(own[1]) << 48);
        });
    RunVerdict verdict = judged(
        executor, [&order] { return order == "abba" ? std::string("b came between a's steps") : std::string(); });
    if (orders) orders->insert(order);
    return verdict;
}

// Every order of the shared steps of two_walks (giving its state) that an exploration with
// these reductions reaches.
std::set<std::string> orders_reached(std::uint32_t bound, bool sleep_sets, bool caching, bool moving = false) {
    std::set<std::string> orders;
    ExploreState state;
    explore_with([&orders, moving](Decider& decider) { return two_walks(decider, 3, true, &orders, true, moving); },
                 bound, sleep_sets, state, true, caching);
    return orders;
}

}  // namespace

TEST_CASE("a_lost_update_needs_one_preemption_and_the_schedules_are_those_counted_by_hand") {
    // Bound 0: a or b first, each running to its end (2). Bound 1: besides, each first task
    // switched away at its point to the other, which runs to its end (2 more). Bound 2: each
    // of those switched back at the other's point (2 more). No decision is left past that.
    const std::uint64_t expected[] = {2, 4, 6, 6};
    for (std::uint32_t bound = 0; bound < 4; ++bound) {
        CAPTURE(bound);
        ExploreState state;
        const ExploreTotals totals = explore_with(lost_update_unstated, bound, false, state);
        CHECK(totals.schedules == expected[bound]);
        CHECK(state.end == moq::sim::ExploreEnd::exhaustive);
        CHECK(totals.failures == (bound == 0 ? 0u : bound == 1 ? 2u : 4u));
    }
}

TEST_CASE("the_first_failure_ends_the_exploration_unless_told_to_keep_going") {
    ExploreState state;
    const ExploreTotals totals = explore_with(lost_update_unstated, 1, false, state, false);
    CHECK(state.end == moq::sim::ExploreEnd::failure);
    REQUIRE(state.failures.size() == 1);
    CHECK(totals.schedules < 4);
    CHECK(state.failures[0].verdict.message == "lost update: counter 1");
}

TEST_CASE("a_failing_schedule_replays_from_its_decisions_with_the_same_digest") {
    ExploreState state;
    explore_with(lost_update_unstated, 2, false, state);
    REQUIRE(state.failures.size() == 4);
    for (const auto& failure : state.failures) {
        ChoiceList replayed(failure.decisions);
        const RunVerdict verdict = lost_update_unstated(replayed);
        CHECK_FALSE(replayed.diverged_at());
        CHECK(replayed.recorded().size() == failure.decisions.size());
        CHECK_FALSE(verdict.ok);
        CHECK(verdict.digest == failure.verdict.digest);
    }
    // The defaults alone (no decision list) are the passing schedule a-then-b.
    ChoiceList defaults({});
    CHECK(lost_update_unstated(defaults).ok);
}

TEST_CASE("sleep_sets_skip_reorderings_of_steps_on_disjoint_objects") {
    const auto disjoint = [](Decider& decider) { return two_walks(decider, 3, false); };
    ExploreState plain_state;
    ExploreState reduced_state;
    // Both tasks stand at points with known steps only after one preemption has started
    // the second; switching away and back costs two more, so the bound is 3.
    const ExploreTotals plain = explore_with(disjoint, 3, false, plain_state);
    const ExploreTotals reduced = explore_with(disjoint, 3, true, reduced_state);
    MESSAGE("schedules without sleep sets ", plain.schedules, ", with ", reduced.schedules);
    CHECK(plain.failures == 0);
    CHECK(reduced.failures == 0);
    CHECK(reduced.schedules < plain.schedules);
    CHECK(reduced.pruned_by_sleep > 0);
    CHECK(plain.pruned_by_sleep == 0);
}

TEST_CASE("sleep_sets_still_find_a_bug_that_needs_the_conflicting_order") {
    const auto conflicting = [](Decider& decider) { return two_walks(decider, 3, true); };
    for (std::uint32_t bound = 2; bound <= 4; ++bound) {
        CAPTURE(bound);
        ExploreState plain_state;
        ExploreState reduced_state;
        const ExploreTotals plain = explore_with(conflicting, bound, false, plain_state);
        const ExploreTotals reduced = explore_with(conflicting, bound, true, reduced_state);
        CHECK(plain.failures > 0);
        CHECK(reduced.failures > 0);
        CHECK(reduced.schedules <= plain.schedules);
    }
}

TEST_CASE("sleep_sets_reach_every_order_of_the_conflicting_steps_that_the_full_tree_reaches") {
    for (std::uint32_t bound = 1; bound <= 6; ++bound) {
        CAPTURE(bound);
        CHECK(orders_reached(bound, true, false) == orders_reached(bound, false, false));
    }
}

// b marks `mark`, then reads `number`; a looks at the mark, then writes the number (11 if
// it saw the mark). The run fails when b reads 11: a's two steps must fall between b's,
// and a's first step, explored first from the root, commutes with b's start, so the
// failing order is reached only by waking a when b's mark conflicts with its look. The
// program names all it shares. With `moving`, both objects are at another address in
// every run.
// `before`, if given, runs first with the executor (touches made before any task runs).
RunVerdict mark_then_read(Decider& decider, bool moving, const std::function<void(Executor&)>& before = {}) {
    Options options;
    options.decider = &decider;
    options.footprints_complete = true;
    Executor executor(options);
    if (before) before(executor);
    WalkObjects on_stack;
    WalkObjects& objects = moving ? objects_elsewhere() : on_stack;
    int& mark = objects.own[0];
    int& number = objects.common;
    int seen = 0;
    executor.spawn("a", [&](Task& task) {
        task.schedule_point("look", &mark);
        const int looked = mark;
        task.schedule_point("write", &number);
        number = 1 + 10 * looked;
    });
    executor.spawn("b", [&](Task& task) {
        task.schedule_point("mark", &mark);
        mark = 1;
        task.schedule_point("read", &number);
        seen = number;
    });
    return judged(executor, [&] { return seen == 11 ? std::string("a saw the mark and wrote before b read") : ""; });
}

// mark_then_read after touching two objects before its tasks start, the second at the
// first one's address on every other run (an address freed and reused in one run and not
// in the next): the runs number the same objects otherwise along the same decisions.
RunVerdict mark_then_read_after_reuse(Decider& decider, int& runs) {
    static int earlier[2];
    const bool reused = runs++ % 2 == 0;
    return mark_then_read(decider, false, [reused](Executor& executor) {
        executor.touch(&earlier[0]);
        executor.touch(reused ? &earlier[0] : &earlier[1]);
    });
}

// A footprint names each object by the order the run first touched it, not by its
// address: compared by address, a sleeping task's objects (from an earlier run) would
// never meet this run's, and it would sleep through the step it conflicts with.
TEST_CASE("sleep_sets_reach_every_order_when_each_run_puts_its_objects_elsewhere") {
    for (std::uint32_t bound = 1; bound <= 6; ++bound) {
        CAPTURE(bound);
        CHECK(orders_reached(bound, true, false, true) == orders_reached(bound, false, false));
    }
    // From bound 2: at bound 1 the one failing schedule left stands for one that needs
    // two preemptions (the limit of sleep sets under a bound, docs/TESTING.md).
    for (std::uint32_t bound = 2; bound <= 4; ++bound) {
        CAPTURE(bound);
        ExploreState full;
        ExploreState reduced;
        explore_with([](Decider& decider) { return mark_then_read(decider, false); }, bound, false, full);
        const ExploreTotals totals =
            explore_with([](Decider& decider) { return mark_then_read(decider, true); }, bound, true, reduced);
        CHECK(!full.failures.empty());
        CHECK(!reduced.failures.empty());
        CHECK(totals.pruned_by_sleep > 0);
    }
    const auto disjoint = [](Decider& decider) { return two_walks(decider, 3, false, nullptr, false, true); };
    ExploreState plain_state;
    ExploreState reduced_state;
    const ExploreTotals plain = explore_with(disjoint, 3, false, plain_state);
    const ExploreTotals reduced = explore_with(disjoint, 3, true, reduced_state);
    CHECK(reduced.schedules < plain.schedules);
}

// Three tasks each append to one log between points that name nothing: every step touches
// something unknown, so no two commute, even where the run declares complete footprints
// (a task that comes back to a point that named nothing does not touch only itself).
std::set<std::string> logs_reached(bool sleep_sets) {
    std::set<std::string> logs;
    ExploreState state;
    explore_with(
        [&logs](Decider& decider) {
            Options options;
            options.decider = &decider;
            options.footprints_complete = true;
            Executor executor(options);
            std::string log;
            for (const char name : std::string("abc"))
                executor.spawn(std::string(1, name), [&log, name](Task& task) {
                    task.schedule_point("first");
                    log += name;
                    task.schedule_point("second");
                    log += static_cast<char>(name - 'a' + 'A');
                });
            const moq::sim::RunResult result = executor.run();
            logs.insert(log);
            return RunVerdict{true, "", result.digest};
        },
        20, sleep_sets, state, true, false);
    return logs;
}

TEST_CASE("a_point_that_names_nothing_lets_no_step_commute") {
    const std::set<std::string> whole = logs_reached(false);
    CHECK(whole.size() == 90);  // 6! orders of the six appends, each task's two in order
    CHECK(logs_reached(true) == whole);
}

// Numbers stand for the same objects only while runs number them alike: once a run along
// the same decisions numbers them otherwise, the sleep sets stop pruning.
TEST_CASE("sleep_sets_step_aside_when_a_run_numbers_its_objects_otherwise") {
    for (std::uint32_t bound = 2; bound <= 4; ++bound) {
        CAPTURE(bound);
        int runs = 0;
        ExploreState reduced;
        explore_with([&runs](Decider& decider) { return mark_then_read_after_reuse(decider, runs); }, bound, true,
                     reduced);
        CHECK(!reduced.failures.empty());
    }
}

TEST_CASE("state_caching_skips_states_reached_before_and_still_finds_the_lost_update") {
    const auto converging = [](Decider& decider) { return two_walks(decider, 3, false, nullptr, true); };
    const auto unstated = [](Decider& decider) { return two_walks(decider, 3, false); };
    ExploreState cached_state;
    ExploreState plain_state;
    ExploreState unstated_state;
    const ExploreTotals cached = explore_with(converging, 4, false, cached_state, true, true);
    const ExploreTotals plain = explore_with(converging, 4, false, plain_state, true, false);
    const ExploreTotals unstated_totals = explore_with(unstated, 4, false, unstated_state, true, true);
    CHECK(cached.schedules < plain.schedules);
    CHECK(cached.pruned_by_cache > 0);
    CHECK(cached.distinct_states > 0);
    CHECK(plain.pruned_by_cache == 0);
    // A run that gives no state is not cached.
    CHECK(unstated_totals.pruned_by_cache == 0);
    CHECK(unstated_totals.distinct_states == 0);
    CHECK(unstated_totals.schedules == plain.schedules);
    for (std::uint32_t bound = 0; bound <= 2; ++bound) {
        CAPTURE(bound);
        ExploreState state;
        explore_with([](Decider& decider) { return lost_update(decider, true); }, bound, false, state);
        CHECK(state.failures.empty() == (bound == 0));
    }
}

TEST_CASE("state_caching_reaches_every_order_the_whole_tree_reaches") {
    for (std::uint32_t bound = 1; bound <= 6; ++bound) {
        CAPTURE(bound);
        CHECK(orders_reached(bound, true, true) == orders_reached(bound, false, false));
    }
}

namespace {

// `tasks` tasks, each passing `points` schedule points; a run that passes.
RunVerdict tasks_passing_points(Decider& decider, int tasks, int points) {
    Options options;
    options.decider = &decider;
    Executor executor(options);
    for (int i = 0; i < tasks; ++i)
        executor.spawn("t", [points](Task& task) {
            for (int point = 0; point < points; ++point) task.schedule_point("p");
        });
    return judged(executor, [] { return std::string(); });
}

}  // namespace

TEST_CASE("a_run_that_takes_another_way_on_its_prefix_is_a_nondeterministic_failure_with_that_prefix") {
    int runs = 0;
    // The second run has another first decision: three tasks to pick from, not two.
    const auto unsteady = [&runs](Decider& decider) { return tasks_passing_points(decider, ++runs == 1 ? 2 : 3, 1); };
    ExploreState state;
    const ExploreTotals totals = explore_with(unsteady, 1, false, state);  // keep_going: it still ends there
    CHECK(state.end == moq::sim::ExploreEnd::failure);
    CHECK(totals.schedules == 2);
    CHECK(totals.failures == 1);
    REQUIRE(state.failures.size() == 1);
    const moq::sim::ExploredFailure& failure = state.failures.front();
    CHECK(failure.verdict.message.starts_with(moq::sim::nondeterministic_run));
    CHECK(failure.verdict.message.find("at decision 0") != std::string::npos);
    // Its decisions are the prefix the run was given: the first run's pick between two
    // tasks, unlabelled, as the second run made another decision there.
    REQUIRE_FALSE(failure.decisions.empty());
    CHECK(failure.decisions[0].kind == moq::sim::DecisionKind::pick);
    CHECK(failure.decisions[0].options == 2);
    CHECK(failure.decisions[0].where.empty());
}

TEST_CASE("a_run_that_ends_before_its_prefix_does_is_nondeterministic_too") {
    int runs = 0;
    // The second run stops short of the first's decisions.
    const auto shrinking = [&runs](Decider& decider) { return tasks_passing_points(decider, 2, ++runs == 1 ? 3 : 0); };
    ExploreState state;
    explore_with(shrinking, 1, false, state);
    REQUIRE(state.failures.size() == 1);
    CHECK(state.failures.front().verdict.message.starts_with(moq::sim::nondeterministic_run));
}

TEST_CASE("a_frontier_the_first_run_does_not_take_is_refused") {
    moq::sim::ExploreFrontier frontier;
    moq::sim::ExplorePathStep step;
    step.kind = moq::sim::DecisionKind::preempt;
    step.options = 9;  // no decision of this program has nine options
    frontier.path.push_back(step);
    ExploreOptions options;
    options.bound = 1;
    options.start = &frontier;
    ExploreState state;
    CHECK_THROWS_AS(explore([](Decider& decider) { return lost_update_unstated(decider); }, options, state),
                    moq::sim::NotDeterministic);
}

namespace {

struct Reached {
    ExploreTotals totals;
    std::set<std::string> orders;
    std::uint64_t failures = 0;
};

// two_walks (shared steps, giving its state) explored with `options`, from `start` if given.
Reached explore_walks(ExploreOptions options, const moq::sim::ExploreFrontier* start = nullptr,
                      ExploreState* kept = nullptr) {
    Reached reached;
    ExploreState state;
    options.keep_going = true;
    options.start = start;
    reached.totals = explore(
        [&reached](Decider& decider) { return two_walks(decider, 3, true, &reached.orders, true); }, options, state);
    reached.failures = state.failures.size();
    if (kept) *kept = std::move(state);
    return reached;
}

}  // namespace

// Decisions restored from a frontier keep no numbering of their run's objects; that is no
// reason to distrust the footprints below them, and the sleep sets prune there again.
TEST_CASE("sleep_sets_prune_below_a_restored_frontier") {
    const auto disjoint = [](Decider& decider) { return two_walks(decider, 3, false, nullptr, false, true); };
    ExploreOptions options;
    options.bound = 3;
    options.state_caching = false;
    options.schedule_limit = 1;
    ExploreState first;
    explore(disjoint, options, first);
    REQUIRE(first.frontier);
    options.schedule_limit.reset();
    options.start = &*first.frontier;
    ExploreState rest;
    const ExploreTotals resumed = explore(disjoint, options, rest);
    CHECK(rest.end == moq::sim::ExploreEnd::exhaustive);
    CHECK(resumed.pruned_by_sleep > 0);
}

TEST_CASE("shards_split_the_tree_and_together_run_what_one_search_runs") {
    for (const bool sleep_sets : {false, true}) {
        ExploreOptions options;
        options.bound = 4;
        options.sleep_sets = sleep_sets;
        options.state_caching = false;
        const Reached whole = explore_walks(options);
        for (const std::uint64_t total : {2u, 3u, 7u}) {
            for (const std::uint32_t depth : {0u, 2u, 5u}) {
                CAPTURE(sleep_sets);
                CAPTURE(total);
                CAPTURE(depth);
                Reached joined;
                std::uint64_t busy_shards = 0;
                for (std::uint64_t index = 0; index < total; ++index) {
                    options.shard = moq::sim::ExploreShard{index, total, depth};
                    const Reached part = explore_walks(options);
                    joined.totals.add(part.totals);
                    joined.orders.insert(part.orders.begin(), part.orders.end());
                    joined.failures += part.failures;
                    busy_shards += part.totals.schedules > 0 ? 1 : 0;
                }
                CHECK(joined.totals.schedules == whole.totals.schedules);
                CHECK(joined.failures == whole.failures);
                CHECK(joined.orders == whole.orders);
                // The root has two choices (which task starts); deeper, every shard gets work.
                CHECK(busy_shards == (depth == 0 ? std::min<std::uint64_t>(total, 2) : total));
                CHECK(joined.totals.other_shards > 0);
            }
        }
    }
}

TEST_CASE("shards_with_state_caching_still_reach_every_order_and_failure") {
    ExploreOptions options;
    options.bound = 4;
    const Reached whole = explore_walks(options);
    Reached joined;
    for (std::uint64_t index = 0; index < 3; ++index) {
        options.shard = moq::sim::ExploreShard{index, 3, 2};
        const Reached part = explore_walks(options);
        joined.orders.insert(part.orders.begin(), part.orders.end());
        joined.failures += part.failures;
    }
    CHECK(joined.orders == whole.orders);
    CHECK(joined.failures >= 1);
    CHECK(whole.failures >= 1);
}

TEST_CASE("an_exploration_stopped_at_its_limit_goes_on_from_its_frontier_to_the_same_schedules") {
    for (const bool sleep_sets : {false, true}) {
        ExploreOptions options;
        options.bound = 3;
        options.sleep_sets = sleep_sets;
        options.state_caching = false;
        const Reached whole = explore_walks(options);
        REQUIRE(whole.totals.schedules > 2);
        for (std::uint64_t limit = 1; limit < whole.totals.schedules; ++limit) {
            CAPTURE(sleep_sets);
            CAPTURE(limit);
            options.schedule_limit = limit;
            ExploreState first_state;
            const Reached first = explore_walks(options, nullptr, &first_state);
            REQUIRE(first_state.end == moq::sim::ExploreEnd::budget);
            REQUIRE(first_state.frontier);
            CHECK(first.totals.schedules == limit);
            options.schedule_limit.reset();
            ExploreState rest_state;
            const Reached rest = explore_walks(options, &*first_state.frontier, &rest_state);
            CHECK(rest_state.end == moq::sim::ExploreEnd::exhaustive);
            CHECK_FALSE(rest_state.frontier);
            std::set<std::string> orders = first.orders;
            orders.insert(rest.orders.begin(), rest.orders.end());
            CHECK(orders == whole.orders);
            // Without sleep sets the two parts are the whole, exactly; with them the resumed
            // part lost the sleep sets of its path and may run more, never less.
            if (sleep_sets) {
                CHECK(first.totals.schedules + rest.totals.schedules >= whole.totals.schedules);
                CHECK(first.failures + rest.failures >= whole.failures);
            } else {
                CHECK(first.totals.schedules + rest.totals.schedules == whole.totals.schedules);
                CHECK(first.failures + rest.failures == whole.failures);
            }
        }
    }
}
