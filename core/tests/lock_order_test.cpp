// The lock order route -> track -> group (docs/ARCHITECTURE.md): in a build with
// assertions (no NDEBUG) a core lock taken under one of its own level or a higher one
// fails an assertion that names both places, before it blocks. Also the assertions at
// the invariants a reader relies on, which stay on in every build.
#include <doctest/doctest.h>

#include <mutex>

#include "kio/core_lock.hpp"
#include "kio/waiter.hpp"
#include "model/group.hpp"
#include "model/idle.hpp"
#include "model/route.hpp"
#include "model/track.hpp"
#include "support/counting_waker.hpp"
#include "support/throwing_assertions.hpp"

using moq::kio::CoreLock;
using moq::kio::LockLevel;
using moq::test::AssertionThrown;
using moq::test::ThrowingAssertions;

#ifndef NDEBUG

TEST_CASE("w3_core_locks_taken_in_order_route_track_group_pass") {
    std::mutex route;
    std::mutex track;
    std::mutex group;
    const CoreLock first(route, LockLevel::route);
    const CoreLock second(track, LockLevel::track);
    const CoreLock third(group, LockLevel::group);
    CHECK(moq::kio::core_locks_held() == 3);
}

TEST_CASE("w3_a_core_lock_taken_out_of_order_fails_an_assertion_that_names_both_places") {
    const ThrowingAssertions throwing;
    std::mutex group;
    std::mutex track;
    std::mutex other_group;
    {
        const CoreLock held(group, LockLevel::group);
        CHECK_THROWS_WITH_AS(CoreLock(track, LockLevel::track),
                             doctest::Contains("core lock of level track taken while this thread holds level "
                                               "group, taken at"),
                             AssertionThrown);
        CHECK_THROWS_WITH_AS(CoreLock(other_group, LockLevel::group), doctest::Contains("lock_order_test.cpp"),
                             AssertionThrown);
        // Refused before blocking: nothing was taken, the count is the held lock's.
        CHECK(moq::kio::core_locks_held() == 1);
        CHECK(track.try_lock());
        track.unlock();
    }
    CHECK(moq::kio::core_locks_held() == 0);
}

TEST_CASE("w3_reading_a_track_under_a_group_lock_fails_the_lock_order") {
    const ThrowingAssertions throwing;
    moq::model::TrackProducer track;
    auto created = track.create_group(0);
    REQUIRE(std::holds_alternative<moq::model::GroupProducer>(created));
    const moq::model::GroupConsumer group = std::get<moq::model::GroupProducer>(created).consume();
    // The cells' own levels: a track read nested in a group's lock is out of order.
    CHECK_THROWS_AS(group.cell().read([&](const moq::model::GroupState&) { return track.latest(); }), AssertionThrown);
    // In order it passes: a group read under the route's lock and the track's.
    moq::model::Route route;
    route.serve_from(track.consume());
    const auto route_cell = route.consume();
    CHECK(route_cell.read([&](const moq::model::RouteState&) {
        return track.consume().cell().read([&](const moq::model::TrackState&) { return group.aborted(); });
    }) == false);
}

#endif

// Assertions at the invariants a reader relies on stay on in every build.
TEST_CASE("i3_a_gate_walk_that_finishes_without_its_start_fails_an_assertion") {
    const ThrowingAssertions throwing;
    moq::model::Idle<int> gate;
    CHECK_THROWS_WITH_AS(gate.finish(true), doctest::Contains("walking_"), AssertionThrown);
    moq::test::WakeCounter task;
    const moq::kio::Waiter waiter{task.waker()};
    static_cast<void>(gate.start(waiter, 1));
    CHECK_THROWS_WITH_AS(static_cast<void>(gate.start(waiter, 1)), doctest::Contains("walking_"), AssertionThrown);
    gate.finish(true);
    CHECK(gate.armed());
}

TEST_CASE("k5_a_record_ahead_of_its_lists_epoch_fails_an_assertion_that_prints_both") {
    const ThrowingAssertions throwing;
    moq::test::WakeCounter task;
    const moq::kio::Waiter waiter{task.waker()};
    moq::kio::detail::Identity& identity = waiter.identity();
    CHECK(identity.presume(7, 3) == moq::kio::detail::Presence::unknown);
    CHECK_THROWS_WITH_AS(identity.presume(7, 2), doctest::Contains("(left: 3, right: 2)"), AssertionThrown);
}
