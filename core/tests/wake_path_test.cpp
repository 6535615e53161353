// The wake paths: no waker runs and no schedule point lies under a core lock (checked in
// builds with assertions), the wake points come after the change and outside the lock,
// and a gate is fired before the task it wakes can run.
#include <doctest/doctest.h>

#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "kio/cell.hpp"
#include "kio/core_lock.hpp"
#include "kio/schedule_point.hpp"
#include "kio/waiter.hpp"
#include "model/idle.hpp"
#include "support/counting_waker.hpp"
#include "support/throwing_assertions.hpp"
#include "util/assert.hpp"

using moq::kio::Consumer;
using moq::kio::CoreLock;
using moq::kio::Producer;
using moq::kio::Waiter;
using moq::model::Idle;
using moq::test::AssertionThrown;
using moq::test::ThrowingAssertions;
using moq::test::WakeCounter;

namespace {

// What each wake point saw: its name, the core locks held, the value of the watched cell
// and the wakes the task had got.
struct PointSeen {
    std::string where;
    int locks = 0;
    int value = 0;
    int wakes = 0;
};

struct Watched {
    const Consumer<int>* cell = nullptr;
    const WakeCounter* task = nullptr;
    std::vector<PointSeen> seen;
};
Watched watched;

void record_point(const char* where, const void*) {
    PointSeen point{where, moq::kio::core_locks_held(), -1, watched.task ? watched.task->wakes() : -1};
    // Reading the cell here would deadlock if the point lay under its lock.
    if (point.locks == 0 && watched.cell) point.value = watched.cell->read([](const int& value) { return value; });
    watched.seen.push_back(point);
}

// Records every schedule point while it lives.
class RecordingPoints {
public:
    RecordingPoints(const Consumer<int>& cell, const WakeCounter& task) {
        watched = Watched{&cell, &task, {}};
        moq::kio::set_schedule_point_hook(&record_point);
    }
    ~RecordingPoints() {
        moq::kio::set_schedule_point_hook(nullptr);
        watched = Watched{};
    }
    RecordingPoints(const RecordingPoints&) = delete;
    RecordingPoints& operator=(const RecordingPoints&) = delete;
};

std::optional<int> at_least_one(const int& value) {
    if (value >= 1) return value;
    return std::nullopt;
}

}  // namespace

#ifndef NDEBUG

TEST_CASE("w3_a_waker_run_under_a_core_lock_fails_an_assertion_that_says_where") {
    const ThrowingAssertions throwing;
    WakeCounter task;
    const moq::kio::Waker waker = task.waker();
    std::mutex mutex;
    {
        const CoreLock lock(mutex, moq::kio::LockLevel::cell);
        CHECK(moq::kio::core_locks_held() == 1);
        CHECK_THROWS_WITH_AS(waker.wake(),
                             doctest::Contains("a waker ran while this thread holds 1 core lock(s), the innermost "
                                               "taken at"),
                             AssertionThrown);
        CHECK_THROWS_WITH_AS(waker.wake(), doctest::Contains("wake_path_test.cpp"), AssertionThrown);
        CHECK_THROWS_WITH_AS(moq::kio::schedule_point("test.point"),
                             doctest::Contains("schedule point 'test.point' reached"), AssertionThrown);
    }
    CHECK(task.wakes() == 0);
    CHECK(moq::kio::core_locks_held() == 0);
    waker.wake();  // outside the lock: allowed
    CHECK(task.wakes() == 1);
}

TEST_CASE("w3_core_locks_nest_and_each_release_restores_the_count") {
    std::mutex outer;
    std::mutex inner;
    {
        const CoreLock first(outer, moq::kio::LockLevel::track);
        {
            const CoreLock second(inner, moq::kio::LockLevel::group);
            CHECK(moq::kio::core_locks_held() == 2);
        }
        CHECK(moq::kio::core_locks_held() == 1);
    }
    CHECK(moq::kio::core_locks_held() == 0);
}

#endif

// W3: a wake point is named "wake." and is one a simulator may leave out; every other
// schedule point is one where it may switch tasks.
TEST_CASE("w3_a_wake_point_is_told_by_its_name") {
    CHECK(moq::kio::is_wake_point("wake.cell.modify"));
    CHECK_FALSE(moq::kio::is_wake_point("group.before_route"));
    CHECK_FALSE(moq::kio::is_wake_point("awake"));
}

TEST_CASE("w3_wake_points_come_after_the_change_and_outside_the_lock") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    Producer<int> producer{0};
    const Consumer<int> consumer = producer.consume();
    const RecordingPoints recording(consumer, task);
    REQUIRE(consumer.poll(waiter, at_least_one).is_pending());
    producer.modify([](int& value) { value = 1; });
    REQUIRE(!watched.seen.empty());
    // The wake point of the write, then the one of the list's only entry; both see the
    // new value, unlocked, before the task is woken.
    CHECK(watched.seen.front().where == "wake.cell.modify");
    for (const PointSeen& point : watched.seen) {
        INFO(point.where);
        CHECK(point.locks == 0);
        CHECK(point.value == 1);
        CHECK(point.wakes == 0);
    }
    CHECK(task.wakes() == 1);

    // A notify and a close too; a write nobody waits for has no wake point.
    watched.seen.clear();
    producer.modify([](int& value) { value = 2; });
    CHECK(watched.seen.empty());
    REQUIRE(consumer.poll_closed(waiter).is_pending());
    producer.close();
    REQUIRE(!watched.seen.empty());
    CHECK(watched.seen.front().where == "wake.cell.close");
    CHECK(watched.seen.front().locks == 0);
    CHECK(watched.seen.front().wakes == 1);
    CHECK(task.wakes() == 2);
}

TEST_CASE("i4_a_task_woken_inline_finds_its_gate_fired") {
    // The waker polls at once, as an executor that runs a woken task inline does: the
    // gate must already be fired, or the poll answers Pending without walking and the
    // wake is lost.
    WakeCounter task;
    const Waiter waiter{task.waker()};
    Idle<int> gate;
    Producer<int> producer{0};
    const Consumer<int> consumer = producer.consume();
    const Waiter& through = gate.start(waiter, 0);
    REQUIRE(consumer.poll(through, at_least_one).is_pending());
    gate.finish(true);
    REQUIRE(gate.parked(waiter, 0));
    bool parked_when_woken = true;
    task.on_wake = [&] { parked_when_woken = gate.parked(waiter, 0); };
    producer.modify([](int& value) { value = 1; });
    CHECK(task.wakes() == 1);
    CHECK_FALSE(parked_when_woken);
}

// I1, I4: a task woken inline that walks again and parks again stays parked: its wake
// marked the gate fired before it ran the task, never after, so no fired mark is left over
// for a walk with nothing new to see.
TEST_CASE("i4_a_task_that_walks_again_inline_and_parks_stays_parked") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    Idle<int> gate;
    Producer<int> producer{0};
    const Consumer<int> consumer = producer.consume();
    const auto at_least_two = [](const int& value) { return value >= 2 ? std::optional<int>(value) : std::nullopt; };
    const auto walk = [&] {
        const Waiter& through = gate.start(waiter, 0);
        gate.finish(consumer.poll(through, at_least_two).is_pending());
    };
    walk();
    REQUIRE(gate.parked(waiter, 0));
    task.on_wake = [&] {
        if (!gate.parked(waiter, 0)) walk();
    };
    producer.modify([](int& value) { value = 1; });
    task.on_wake = nullptr;  // the producer's close, at the end, must not walk a consumer gone by then
    CHECK(task.wakes() == 1);
    CHECK(gate.parked(waiter, 0));
}
