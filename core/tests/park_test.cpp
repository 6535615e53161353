#include <doctest/doctest.h>

#include "kio/park.hpp"
#include "kio/waiter_list.hpp"
#include "support/counting_waker.hpp"

using moq::kio::Park;
using moq::kio::Waiter;
using moq::kio::WaiterList;
using moq::test::WakeCounter;

TEST_CASE("park_reuses_a_still_registered_waiter") {
    WakeCounter task;
    WaiterList list;
    Park park;
    const Waiter& first = park.hold(task.waker());
    first.register_on(list);
    const Waiter& second = park.hold(task.waker());
    CHECK(&first.identity() == &second.identity());
    second.register_on(list);
    CHECK(list.size() == 1);
    list.wake();
    CHECK(task.wakes() == 1);
    // After the drain the same waiter is reused and lands again.
    const Waiter& third = park.hold(task.waker());
    third.register_on(list);
    CHECK(list.size() == 1);
}

TEST_CASE("park_retires_a_waiter_for_another_task") {
    WakeCounter first_task;
    WakeCounter second_task;
    WaiterList list;
    Park park;
    park.hold(first_task.waker()).register_on(list);
    park.hold(second_task.waker()).register_on(list);
    CHECK(list.live() == 1);  // the first task's entry died with its waiter
    list.wake();
    CHECK(first_task.wakes() == 0);
    CHECK(second_task.wakes() == 1);
}

TEST_CASE("park_survives_a_poll_that_returns_early") {
    WakeCounter task;
    WaiterList list;
    Park park;
    auto poll = [&](bool register_now) {
        const Waiter& waiter = park.hold(task.waker());
        if (register_now) waiter.register_on(list);
        return false;  // Pending either way
    };
    poll(true);
    poll(false);  // returns early; the registration from the first poll must survive
    list.wake();
    CHECK(task.wakes() == 1);
}

TEST_CASE("park_clone_is_idle") {
    WakeCounter task;
    Park park;
    park.hold(task.waker());
    const Park copy = park;
    CHECK(copy.held() == nullptr);
    CHECK(park.held() != nullptr);
}

TEST_CASE("park_new_starts_holding") {
    WakeCounter task;
    WaiterList list;
    Waiter waiter{task.waker()};
    waiter.register_on(list);
    Park park{std::move(waiter)};
    const Waiter& held = park.hold(task.waker());
    held.register_on(list);
    CHECK(list.size() == 1);
}

TEST_CASE("park_holds_nothing_until_a_task_polls_and_after_release") {
    WakeCounter task;
    WaiterList list;
    Park park;
    CHECK(park.held() == nullptr);
    const Waiter& waiter = park.hold(task.waker());
    CHECK(park.held() == &waiter);
    waiter.register_on(list);
    park.release();
    CHECK(park.held() == nullptr);
    CHECK(list.live() == 0);  // released: its registration died with it
    list.wake();
    CHECK(task.wakes() == 0);
}

TEST_CASE("park_holds_a_waiter_for_a_noop_waker_too") {
    // The empty slot's own waker matches no waker a caller passes, a noop one included.
    Park park;
    const Waiter& waiter = park.hold(moq::kio::Waker());
    CHECK(park.held() == &waiter);
    CHECK(waiter.waker().is_noop());
    CHECK(&park.hold(moq::kio::Waker()) == &waiter);
}
