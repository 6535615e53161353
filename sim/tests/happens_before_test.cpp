// Happens-before over a simulated run (sim/happens_before.hpp): the C++ memory model's
// synchronizes-with, release sequences, spawns and the simulator's wakes, first on the
// clocks alone and then through the executor, from the atomics and locks of code built
// with sync points.
#define MOQ_SYNC_POINTS 1

#include <doctest/doctest.h>

#include <atomic>
#include <mutex>
#include <optional>

#include "kio/sync.hpp"
#include "sim/executor.hpp"
#include "sim/happens_before.hpp"

using moq::kio::SyncAccess;
using moq::sim::HappensBefore;
using moq::sim::Stamp;

namespace {

// Three tasks that began on their own (nothing spawned them).
HappensBefore three_tasks() {
    HappensBefore order;
    for (std::uint32_t task = 0; task < 3; ++task) order.spawned(std::nullopt, task);
    return order;
}

}  // namespace

TEST_CASE("an_acquire_load_sees_what_came_before_the_release_store_it_reads_and_nothing_after") {
    HappensBefore order = three_tasks();
    const int flag = 0;
    const Stamp before = order.stamp(0);
    order.ordered(0, &flag, SyncAccess::store, std::memory_order_release);
    const Stamp after = order.stamp(0);
    CHECK_FALSE(order.saw(1, before));
    order.ordered(1, &flag, SyncAccess::load, std::memory_order_acquire);
    CHECK(order.saw(1, before));
    CHECK_FALSE(order.saw(1, after));
    // A relaxed load of the same store synchronizes with nothing.
    order.ordered(2, &flag, SyncAccess::load, std::memory_order_relaxed);
    CHECK_FALSE(order.saw(2, before));
    // A task sees its own past.
    CHECK(order.saw(0, after));
}

TEST_CASE("a_relaxed_store_publishes_nothing_and_ends_the_release_sequence_before_it") {
    HappensBefore order = three_tasks();
    const int flag = 0;
    const Stamp first = order.stamp(0);
    order.ordered(0, &flag, SyncAccess::store, std::memory_order_release);
    order.ordered(1, &flag, SyncAccess::store, std::memory_order_relaxed);
    order.ordered(2, &flag, SyncAccess::load, std::memory_order_acquire);
    CHECK_FALSE(order.saw(2, first));
}

// The runtime's requeue (runtime/task.cpp): a waker's read-modify-write heads a release
// sequence, the worker puts the task back to scheduled, and the next run's exchange
// acquires. Only a read-modify-write keeps the waker's write visible to that run.
TEST_CASE("a_store_ends_the_release_sequence_a_wake_heads_where_a_read_modify_write_continues_it") {
    for (const bool requeue_by_store : {true, false}) {
        CAPTURE(requeue_by_store);
        HappensBefore order = three_tasks();
        const int state = 0;
        const Stamp posted = order.stamp(0);
        order.ordered(0, &state, SyncAccess::read_modify_write, std::memory_order_acq_rel);  // the wake
        if (requeue_by_store)
            order.ordered(1, &state, SyncAccess::store, std::memory_order_release);
        else
            order.ordered(1, &state, SyncAccess::read_modify_write, std::memory_order_relaxed);
        order.ordered(2, &state, SyncAccess::read_modify_write, std::memory_order_acq_rel);  // the next run
        CHECK(order.saw(2, posted) == !requeue_by_store);
        // The worker that requeued saw nothing of the waker either way: it never acquired.
        CHECK_FALSE(order.saw(1, posted));
    }
}

// A reference count: each task's decrement releases and the last one acquires, so the
// free that follows the last happens after every use; a relaxed decrement breaks that.
TEST_CASE("a_free_happens_after_every_use_of_the_count_only_through_its_release_sequence") {
    for (const std::memory_order first_drop : {std::memory_order_acq_rel, std::memory_order_relaxed}) {
        CAPTURE(static_cast<int>(first_drop));
        HappensBefore order = three_tasks();
        const int count = 0;
        order.ordered(0, &count, SyncAccess::read_modify_write, std::memory_order_relaxed);  // a retain
        order.ordered(1, &count, SyncAccess::read_modify_write, first_drop);
        order.ordered(2, &count, SyncAccess::read_modify_write, std::memory_order_acq_rel);  // the last
        // Task 0's retain is not ordered before the free by itself...
        CHECK_FALSE(order.after_every_use(2, &count));
        // ...until its own release, which a reference's holder makes before letting go.
        order.ordered(0, &count, SyncAccess::read_modify_write, std::memory_order_acq_rel);
        order.ordered(2, &count, SyncAccess::read_modify_write, std::memory_order_acq_rel);
        CHECK(order.after_every_use(2, &count) == (first_drop == std::memory_order_acq_rel));
    }
}

TEST_CASE("a_lock_sees_what_came_before_the_last_unlock_and_order_is_transitive") {
    HappensBefore order = three_tasks();
    const int lock = 0;
    const int flag = 0;
    const Stamp first = order.stamp(0);
    order.ordered(0, &lock, SyncAccess::load, std::memory_order_acquire);
    order.ordered(0, &lock, SyncAccess::store, std::memory_order_release);
    order.ordered(1, &lock, SyncAccess::load, std::memory_order_acquire);
    order.ordered(1, &flag, SyncAccess::read_modify_write, std::memory_order_release);
    CHECK_FALSE(order.saw(2, first));
    order.ordered(2, &flag, SyncAccess::read_modify_write, std::memory_order_acquire);
    CHECK(order.saw(2, first));
}

TEST_CASE("a_spawn_and_a_wake_pass_the_past_of_the_task_that_made_them_and_not_its_future") {
    HappensBefore order;
    order.spawned(std::nullopt, 0);
    const Stamp before_spawn = order.stamp(0);
    order.spawned(0, 1);
    const Stamp after_spawn = order.stamp(0);
    CHECK(order.saw(1, before_spawn));
    CHECK_FALSE(order.saw(1, after_spawn));
    order.spawned(std::nullopt, 2);
    CHECK_FALSE(order.saw(2, after_spawn));
    order.woke(0, 2);
    CHECK(order.saw(2, after_spawn));
    CHECK_FALSE(order.saw(2, order.stamp(0)));
}

namespace {

struct Passing {
    std::memory_order store_order = std::memory_order_relaxed;
    std::memory_order load_order = std::memory_order_relaxed;
    bool locked = false;  // the writer and the reader hold one lock around their parts
    bool track = true;    // Options::happens_before
};

// A writer stamps its write and raises a flag; a reader waits for the flag and asks
// whether it saw the write. nullopt: the run failed.
std::optional<bool> message_passing(const Passing& how) {
    moq::kio::Mutex mutex{"test.lock"};
    moq::kio::Atomic<int> flag{"test.flag", 0};
    moq::sim::Options options;
    options.seed = 7;
    options.happens_before = how.track;
    moq::sim::Executor executor{options};
    Stamp written;
    bool saw = false;
    executor.spawn("writer", [&](moq::sim::Task&) {
        std::unique_lock lock(mutex, std::defer_lock);
        if (how.locked) lock.lock();
        written = executor.stamp();
        flag.store(1, how.store_order);
    });
    executor.spawn("reader", [&](moq::sim::Task& task) {
        while (flag.load(how.load_order) == 0) task.yield();
        std::unique_lock lock(mutex, std::defer_lock);
        if (how.locked) lock.lock();
        saw = executor.saw(written);
    });
    if (executor.run().outcome != moq::sim::Outcome::finished) return std::nullopt;
    return saw;
}

}  // namespace

TEST_CASE("the_executor_orders_its_tasks_by_the_memory_orders_of_their_atomics") {
    using enum std::memory_order;
    CHECK(message_passing({.store_order = release, .load_order = acquire}) == true);
    CHECK(message_passing({.store_order = seq_cst, .load_order = seq_cst}) == true);
    CHECK(message_passing({.store_order = relaxed, .load_order = acquire}) == false);
    CHECK(message_passing({.store_order = release, .load_order = relaxed}) == false);
    // Without the option the executor knows nothing of the orders, and says so by
    // answering that everything was seen.
    CHECK(message_passing({.track = false}) == true);
}

TEST_CASE("the_executor_orders_a_lock_after_the_unlock_before_it") {
    // Relaxed atomics: only the lock can order the write before the read.
    CHECK(message_passing({.locked = true}) == true);
    CHECK(message_passing({.locked = false}) == false);
}
