#include <doctest/doctest.h>

#include <chrono>
#include <limits>

#include "model/subscriber.hpp"
#include "support/allocation_counter.hpp"
#include "support/front.hpp"

using moq::kio::Instant;
using moq::kio::Waiter;
using moq::model::Error;
using moq::model::Preferences;
using moq::model::Walk;
using moq::test::Front;
using moq::test::WakeCounter;
using namespace std::chrono_literals;

TEST_CASE_FIXTURE(Front, "a_reader_reads_the_serving_copy") {
    land(a, 0);
    land(a, 1);
    route.serve_from(a.consume());
    CHECK(take(Walk::arrival) == 0);
    CHECK(take(Walk::arrival) == 1);
    CHECK(pending(Walk::arrival));
    a.finish();
    CHECK(task.wakes() == 1);
    CHECK(ended(Walk::arrival));
}

TEST_CASE_FIXTURE(Front, "a_group_both_copies_deliver_is_handed_out_once") {
    land(a, 0);
    land(b, 0);
    land(b, 1);
    route.serve_from(a.consume());
    CHECK(take(Walk::arrival) == 0);
    route.serve_from(b.consume());
    CHECK(take(Walk::arrival) == 1);
    CHECK(pending(Walk::arrival));
}

TEST_CASE_FIXTURE(Front, "a_replaced_copy_supplies_nothing_past_until") {
    land(a, 0);
    route.serve_from(a.consume());
    CHECK(take(Walk::arrival) == 0);
    route.serve_from(b.consume());
    CHECK(pending(Walk::arrival));
    land(a, 1);  // A raced past the switch: B is the one to deliver 1
    CHECK(pending(Walk::arrival));
    land(b, 1);
    CHECK(take(Walk::arrival) == 1);
    // A had nothing left that it may supply: it was let go.
    CHECK(reader.copies().size() == 1);
}

TEST_CASE_FIXTURE(Front, "an_idle_resumed_read_parks_for_the_task_polling_it") {
    WakeCounter other_task;
    const Waiter other{other_task.waker()};
    route.serve_from(a.consume());
    park_until_armed(Walk::arrival);
    const auto walks = reader.walk_counter(Walk::arrival).walks;
    for (int i = 0; i < 10; ++i) CHECK(pending(Walk::arrival));
    CHECK(reader.walk_counter(Walk::arrival).walks == walks);
    CHECK(reader.poll_peek_group(other, Walk::arrival).is_pending());
    CHECK(reader.walk_counter(Walk::arrival).walks == walks + 1);
    land(a, 0);
    CHECK(other_task.wakes() == 1);
    CHECK(reader.poll_peek_group(other, Walk::arrival).value().item()->sequence == 0);
}

TEST_CASE_FIXTURE(Front, "a_read_waiting_past_a_drained_copy_wakes_when_the_route_changes") {
    land(a, 0);
    land(a, 2);  // 1 is late on A
    route.serve_from(a.consume());
    CHECK(take(Walk::arrival) == 0);
    CHECK(take(Walk::arrival) == 2);
    b.finish();  // B is drained at once
    route.serve_from(b.consume());
    // Waits for A to land 1 within its grace; B has nothing.
    CHECK(pending(Walk::arrival));
    park_until_armed(Walk::arrival);
    task.reset();
    land(c, 3);
    route.serve_from(c.consume());
    // Through the gate, and once more through the registration the first walk made
    // before the gate existed (a spurious wake is allowed, a missed one is not).
    CHECK(task.wakes() >= 1);
    CHECK(take(Walk::arrival) == 3);
}

TEST_CASE_FIXTURE(Front, "a_replaced_copy_within_grace_is_let_go_by_its_deadline_alone") {
    land(a, 0);
    land(a, 2);
    route.serve_from(a.consume());
    CHECK(take(Walk::arrival) == 0);
    CHECK(take(Walk::arrival) == 2);
    b.finish();
    route.serve_from(b.consume());
    CHECK(pending(Walk::arrival));  // A may still land 1
    task.reset();
    clock.advance_by(999ms);
    CHECK(task.wakes() == 0);
    clock.advance_by(1ms);
    CHECK(task.wakes() == 1);  // the grace deadline, not a late budget, ends it
    CHECK(ended(Walk::arrival));
}

TEST_CASE_FIXTURE(Front, "a_late_group_lands_from_a_replaced_copy_within_grace") {
    land(a, 0);
    land(a, 2);
    route.serve_from(a.consume());
    CHECK(take(Walk::arrival) == 0);
    CHECK(take(Walk::arrival) == 2);
    route.serve_from(b.consume());
    CHECK(pending(Walk::arrival));
    task.reset();
    land(a, 1);
    CHECK(task.wakes() == 1);  // the replaced copy's cursor still wakes the reader
    CHECK(take(Walk::arrival) == 1);
}

TEST_CASE_FIXTURE(Front, "a_preferences_update_wakes_the_reader_and_reaches_the_serving_copy") {
    route.serve_from(a.consume());
    CHECK(pending(Walk::arrival));
    preferences.modify([](Preferences& p) {
        p.priority = 7;
        p.max_age = 2s;
    });
    CHECK(task.wakes() == 1);
    CHECK(pending(Walk::arrival));
    CHECK(reader.copies().back().demand.priority == 7);
    CHECK(reader.copies().back().demand.max_age == 2s);
}

TEST_CASE_FIXTURE(Front, "set_range_disarms_the_gates") {
    for (std::uint64_t sequence = 0; sequence < 3; ++sequence) land(a, sequence);
    route.serve_from(a.consume());
    for (std::uint64_t sequence = 0; sequence < 3; ++sequence) CHECK(take(Walk::sequence) == sequence);
    park_until_armed(Walk::sequence);
    reader.set_range(0, 3);  // everything in range is handed out
    CHECK(ended(Walk::sequence));
}

TEST_CASE_FIXTURE(Front, "skip_ordered_disarms_the_gates") {
    land(a, 0);
    land(a, 2);  // 1 is late on A
    route.serve_from(a.consume());
    CHECK(take(Walk::sequence) == 0);
    land(b, 3);
    route.serve_from(b.consume());
    // 2 (A) and 3 (B) are there, but A may still land 1 within its grace: wait.
    park_until_armed(Walk::sequence);
    reader.skip_ordered(2);  // an outer route moved the floor past everything A may land
    CHECK(take(Walk::sequence) == 3);
}

TEST_CASE_FIXTURE(Front, "a_sequence_walk_waits_for_a_late_group_then_goes_on_without_it") {
    land(a, 0);
    land(a, 2);
    route.serve_from(a.consume());
    CHECK(take(Walk::sequence) == 0);
    route.serve_from(b.consume());
    CHECK(pending(Walk::sequence));
    clock.advance_by(1s);  // grace over: 1 will not come from A
    CHECK(take(Walk::sequence) == 2);
}

TEST_CASE_FIXTURE(Front, "a_dead_serving_copy_stalls_until_the_next_route") {
    land(a, 0);
    route.serve_from(a.consume());
    CHECK(take(Walk::arrival) == 0);
    a.abort(Error::route_failed);
    CHECK(pending(Walk::arrival));
    land(b, 1);
    b.finish();
    route.serve_from(b.consume());
    CHECK(take(Walk::arrival) == 1);
    CHECK(ended(Walk::arrival));
}

TEST_CASE_FIXTURE(Front, "ending_the_route_with_an_error_ends_the_reader_with_it") {
    route.serve_from(a.consume());
    CHECK(pending(Walk::arrival));
    route.end(Error::unroutable);
    CHECK(task.wakes() == 1);
    auto peek = reader.poll_peek_group(waiter, Walk::arrival);
    REQUIRE(peek.value().is_error());
    CHECK(peek.value().error() == Error::unroutable);
}

TEST_CASE_FIXTURE(Front, "a_handed_out_group_continues_from_the_replacement") {
    auto created = a.create_group(0);
    auto& stalled = std::get<moq::model::GroupProducer>(created);
    REQUIRE_FALSE(stalled.write_frame("a"));
    route.serve_from(a.consume());
    auto peek = reader.poll_peek_group(waiter, Walk::arrival);
    REQUIRE(peek.is_ready());
    auto group = reader.take();
    CHECK(*group->poll_read_frame(waiter).value().item() == "a");
    CHECK(group->poll_read_frame(waiter).is_pending());
    auto replacement = b.create_group(0);
    auto& copy = std::get<moq::model::GroupProducer>(replacement);
    REQUIRE_FALSE(copy.write_frame("a"));
    REQUIRE_FALSE(copy.write_frame("b"));
    REQUIRE_FALSE(copy.finish());
    task.reset();
    route.serve_from(b.consume());
    CHECK(task.wakes() >= 1);
    CHECK(*group->poll_read_frame(waiter).value().item() == "b");  // same frame index, new copy
    CHECK(group->poll_read_frame(waiter).value().is_end());
}

TEST_CASE_FIXTURE(Front, "an_idle_subscriber_poll_builds_no_meter") {
    route.serve_from(a.consume());
    moq::model::TrackSubscriber subscriber{std::move(reader)};
    land(a, 0);
    auto group = subscriber.poll_group(waiter, Walk::arrival);
    REQUIRE(group.value().is_item());
    CHECK(subscriber.stats().groups == 1);
    CHECK(subscriber.stats().polls == 1);  // the walking poll built its meter (S2)
    CHECK(*group.value().item().poll_read_frame(waiter).value().item() == "group 0");
    CHECK(*subscriber.stats().bytes == 7);  // metered as the frame was read
    CHECK(subscriber.poll_group(waiter, Walk::arrival).is_pending());
    CHECK(subscriber.poll_group(waiter, Walk::arrival).is_pending());
    const auto polls = subscriber.stats().polls.load();
    for (int i = 0; i < 10; ++i) CHECK(subscriber.poll_group(waiter, Walk::arrival).is_pending());
    CHECK(subscriber.stats().polls == polls);
}

TEST_CASE_FIXTURE(Front, "a_sequence_walk_waiting_for_a_late_group_hears_it_land") {
    land(a, 0);
    land(a, 2);
    route.serve_from(a.consume());
    CHECK(take(Walk::sequence) == 0);
    route.serve_from(b.consume());
    CHECK(pending(Walk::sequence));  // A may still land 1
    task.reset();
    land(a, 1);
    CHECK(task.wakes() >= 1);
    CHECK(take(Walk::sequence) == 1);
    CHECK(take(Walk::sequence) == 2);
}

TEST_CASE("a_failed_serving_copy_ends_the_reader_once_the_route_is_gone") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    moq::kio::ManualClock clock;
    auto route = std::make_unique<moq::model::Route>();
    moq::kio::Producer<Preferences> preferences;
    moq::model::TrackProducer a;
    moq::model::ResumeReader reader{route->consume(), preferences.consume(), clock};
    Front::land(a, 0);
    route->serve_from(a.consume());
    REQUIRE(reader.poll_peek_group(waiter, Walk::arrival).is_ready());
    reader.take();
    a.abort(Error::route_failed);
    CHECK(reader.poll_peek_group(waiter, Walk::arrival).is_pending());  // a new route may come
    task.reset();
    route.reset();  // the front is gone: none will
    CHECK(task.wakes() >= 1);
    auto peek = reader.poll_peek_group(waiter, Walk::arrival);
    REQUIRE(peek.is_ready());
    CHECK(peek.value().error() == Error::route_failed);
}

TEST_CASE_FIXTURE(Front, "a_stalled_group_outlives_a_clean_route_end") {
    auto created = a.create_group(0);
    auto& group = std::get<moq::model::GroupProducer>(created);
    REQUIRE_FALSE(group.write_frame("a"));
    route.serve_from(a.consume());
    REQUIRE(reader.poll_peek_group(waiter, Walk::arrival).is_ready());
    auto handed = reader.take();
    CHECK(*handed->poll_read_frame(waiter).value().item() == "a");
    CHECK(handed->poll_read_frame(waiter).is_pending());
    route.park();
    route.end(std::nullopt);
    CHECK(handed->poll_read_frame(waiter).is_pending());  // its copy is healthy: it waits
    REQUIRE_FALSE(group.write_frame("b"));
    REQUIRE_FALSE(group.finish());
    CHECK(*handed->poll_read_frame(waiter).value().item() == "b");
    CHECK(handed->poll_read_frame(waiter).value().is_end());
}

// R14: a handed-out group whose copy landed it and never wrote its frame stalls; read by
// another task than the reader's, it is woken once when the route moves to a copy that
// has the group, and continues from there (resume.recover.route.register).
TEST_CASE_FIXTURE(Front, "r14_a_stalled_group_read_by_another_task_hears_the_route_move") {
    WakeCounter follower_task;
    const Waiter follower{follower_task.waker()};
    auto created = a.create_group(0);  // landed, its frame still to come
    REQUIRE(std::holds_alternative<moq::model::GroupProducer>(created));
    route.serve_from(a.consume());
    REQUIRE(reader.poll_peek_group(waiter, Walk::arrival).is_ready());
    auto handed = reader.take();
    REQUIRE(handed.has_value());
    CHECK(handed->poll_read_frame(follower).is_pending());
    land(b, 0);
    CHECK(follower_task.wakes() == 0);  // B is not served yet
    route.serve_from(b.consume());
    CHECK(follower_task.wakes() == 1);
    CHECK(*handed->poll_read_frame(follower).value().item() == "group 0");
    CHECK(handed->poll_read_frame(follower).value().is_end());
}

TEST_CASE_FIXTURE(Front, "raising_the_range_end_offers_the_groups_held_past_it") {
    hold_one_past_the_end();
    reader.set_range(0, 5);
    land(a, 2);
    CHECK(take(Walk::arrival) == 1);
    CHECK(take(Walk::arrival) == 2);
}

TEST_CASE_FIXTURE(Front, "a_sequence_walk_keeps_a_group_past_the_range_end_for_a_raised_end") {
    route.serve_from(a.consume());
    reader.set_range(0, 1);
    land(a, 0);
    land(a, 1);
    CHECK(take(Walk::sequence) == 0);
    CHECK(ended(Walk::sequence));  // everything in [0, 1) is handed out
    reader.set_range(0, 5);
    CHECK(take(Walk::sequence) == 1);
}

TEST_CASE_FIXTURE(Front, "a_group_landing_below_a_finished_copys_end_is_still_handed_out") {
    // B ends cleanly while a replaced copy (A) still keeps the reader waiting; a group
    // landing in B below its end meanwhile must be handed out, not lost behind the end.
    reader.set_range(0, 2);
    land(a, 2);  // past the range: held back
    route.serve_from(a.consume());
    land(a, 0);
    CHECK(take(Walk::arrival) == 0);
    land(b, 2);
    route.serve_from(b.consume());
    REQUIRE_FALSE(b.finish());      // ends at 3; 1 may still land
    CHECK(pending(Walk::arrival));  // A may still land 1 within its grace
    task.reset();
    land(b, 1);
    CHECK(task.wakes() >= 1);
    CHECK(take(Walk::arrival) == 1);
}

TEST_CASE_FIXTURE(Front, "an_idle_subscriber_poll_allocates_nothing") {
    route.serve_from(a.consume());
    moq::model::TrackSubscriber subscriber{std::move(reader)};
    CHECK(subscriber.poll_group(waiter, Walk::arrival).is_pending());
    CHECK(subscriber.poll_group(waiter, Walk::arrival).is_pending());  // the gate arms
    const moq::test::AllocationScope scope;
    for (int i = 0; i < 100; ++i) CHECK(subscriber.poll_group(waiter, Walk::arrival).is_pending());
    CHECK(scope.count() == 0);
}

TEST_CASE_FIXTURE(Front, "r4_a_replaced_copy_without_until_holds_nothing_past_the_range_end") {
    land(a, 0);
    route.serve_from(b.consume());
    CHECK(pending(Walk::arrival));
    route.serve_from(a.consume());
    // B is replaced while it has nothing (no until), by a walk that hands out A's 0 and so
    // keeps B for now.
    CHECK(take(Walk::arrival) == 0);
    land(b, 3);
    reader.set_range(0, 3);
    CHECK(pending(Walk::arrival));
    reader.set_range(0, std::nullopt);
    CHECK(pending(Walk::arrival));  // B's 3 was never B's to supply, held or not
    land(a, 3);
    CHECK(take(Walk::arrival) == 3);
}

TEST_CASE_FIXTURE(Front, "r12_a_clean_end_waits_while_a_group_is_held_past_the_range_end") {
    route.serve_from(a.consume());
    reader.set_range(0, 1);
    land(a, 1);
    CHECK(pending(Walk::arrival));
    REQUIRE_FALSE(a.finish());
    CHECK(pending(Walk::arrival));  // 1 is held: a raised end still hands it out
    reader.set_range(0, 5);
    CHECK(take(Walk::arrival) == 1);
    CHECK(ended(Walk::arrival));
}

TEST_CASE_FIXTURE(Front, "r12_a_failed_copy_keeps_a_group_past_the_range_end_for_a_raised_end") {
    route.serve_from(a.consume());
    reader.set_range(0, 3);
    land(a, 3);
    CHECK(pending(Walk::sequence));
    a.abort(Error::route_failed);
    CHECK(pending(Walk::sequence));
    reader.set_range(0, std::nullopt);
    CHECK(take(Walk::sequence) == 3);
}

TEST_CASE_FIXTURE(Front, "r12_a_group_handed_out_before_is_not_held_past_the_range_end") {
    route.serve_from(a.consume());
    land(a, 8);
    CHECK(take(Walk::arrival) == 8);
    reader.set_range(0, 1);
    land(b, 8);
    REQUIRE_FALSE(b.finish());
    route.serve_from(b.consume());
    // B's 8 lies past the range's end but was handed out already: nothing is held, and
    // B's clean end ends the read.
    CHECK(ended(Walk::arrival));
}

TEST_CASE_FIXTURE(Front, "r17_an_aborted_group_held_past_the_range_end_is_never_handed_out") {
    route.serve_from(a.consume());
    reader.set_range(0, 1);
    land(a, 0);
    auto one = land_kept(a, 1);
    land(a, 2);
    CHECK(take(Walk::arrival) == 0);
    CHECK(ended(Walk::arrival));  // 1 and 2 are held past the range's end
    one.abort(Error::cancel);
    reader.set_range(0, 5);
    CHECK(take(Walk::arrival) == 2);
}

TEST_CASE_FIXTURE(Front, "r17_a_held_group_aborted_in_one_copy_is_handed_out_from_another") {
    reader.set_range(0, 1);
    route.serve_from(a.consume());
    auto six_in_a = land_kept(a, 6);
    CHECK(pending(Walk::arrival));  // 6 is held past the range's end, from A
    route.serve_from(b.consume());
    land(b, 6);
    CHECK(pending(Walk::arrival));  // and from B
    six_in_a.abort(Error::cancel);
    reader.set_range(0, std::nullopt);
    CHECK(take(Walk::arrival) == 6);  // B's group: A's abort dropped only A's (R12, R17)
}

TEST_CASE_FIXTURE(Front, "r17_an_aborted_held_group_no_longer_keeps_the_read_from_ending") {
    route.serve_from(a.consume());
    reader.set_range(0, 1);
    auto one = land_kept(a, 1);
    REQUIRE_FALSE(a.finish());
    CHECK(pending(Walk::arrival));  // 1 is held: the clean end waits (R12)
    task.reset();
    one.abort(Error::cancel);
    CHECK(task.wakes() >= 1);
    CHECK(ended(Walk::arrival));
}

TEST_CASE_FIXTURE(Front, "r17_a_peeked_group_aborted_before_the_next_poll_is_not_handed_out") {
    route.serve_from(a.consume());
    auto zero = land_kept(a, 0);
    land(a, 1);
    auto peek = reader.poll_peek_group(waiter, Walk::arrival);
    REQUIRE(peek.is_ready());
    REQUIRE(peek.value().is_item());
    REQUIRE(peek.value().item()->sequence == 0);
    zero.abort(Error::cancel);
    CHECK(take(Walk::arrival) == 1);
}

TEST_CASE_FIXTURE(Front, "r17_a_sequence_walk_parked_on_a_peek_hears_its_abort") {
    route.serve_from(a.consume());
    reader.set_range(0, 3);
    auto three = land_kept(a, 3);
    land(a, 4);
    CHECK(pending(Walk::sequence));  // 3 waits in A past the range's end (R12)
    task.reset();
    three.abort(Error::cancel);
    CHECK(task.wakes() >= 1);
    reader.set_range(0, std::nullopt);
    CHECK(take(Walk::sequence) == 4);
}

// The delivered window (ResumeOptions::delivered_window) at its smallest.
using OneWindowFront = moq::test::FrontWith<1>;

TEST_CASE_FIXTURE(OneWindowFront, "r5_a_sequence_the_delivered_window_forgot_is_never_handed_out_again") {
    land(a, 0);
    route.serve_from(a.consume());
    CHECK(take(Walk::arrival) == 0);
    land(b, 1);
    land(b, 0);  // B has 0 too, landed after 1
    route.serve_from(b.consume());
    CHECK(take(Walk::arrival) == 1);  // the window forgets 0: it counts as handed out
    CHECK(pending(Walk::arrival));
}

TEST_CASE_FIXTURE(OneWindowFront, "r9_a_sequence_walk_waits_only_on_a_copy_it_retains") {
    land(a, 1);
    land(a, 4);
    route.serve_from(a.consume());
    CHECK(take(Walk::sequence) == 1);
    route.serve_from(a.consume());  // the first copy is replaced, until 4
    // One sequence of the replaced copy is looked at, 4, which it has: it is not
    // retained (R8), so 4 waits for no lower group (R9) and no grace deadline.
    CHECK(take(Walk::sequence) == 4);
}

TEST_CASE_FIXTURE(moq::test::FrontWith<2>, "r9_a_sequence_walk_waiting_on_a_retained_copy_wakes_at_its_grace") {
    land(a, 1);
    land(a, 4);
    route.serve_from(a.consume());
    CHECK(take(Walk::sequence) == 1);
    route.serve_from(a.consume());  // replaced, until 4: 3 and 4 are looked at, 3 may land
    CHECK(pending(Walk::sequence));
    task.reset();
    clock.advance_by(1s);
    CHECK(task.wakes() == 1);
    CHECK(take(Walk::sequence) == 4);
}

TEST_CASE_FIXTURE(OneWindowFront, "r12_past_the_window_the_furthest_held_group_is_dropped") {
    route.serve_from(a.consume());
    reader.set_range(0, 1);
    land(a, 2);
    land(a, 1);  // held 2, then 1: one group fits, so 2 goes
    CHECK(pending(Walk::arrival));
    reader.set_range(0, 5);
    CHECK(take(Walk::arrival) == 1);
    CHECK(pending(Walk::arrival));  // 2 was dropped and the cursor went past it
}

TEST_CASE_FIXTURE(Front, "r17_a_sequence_walk_ends_past_an_aborted_group_when_another_copy_moved_its_floor") {
    route.serve_from(b.consume());
    CHECK(pending(Walk::sequence));
    auto five = land_kept(a, 5);
    land(b, 4);
    route.serve_from(a.consume());  // B is replaced with until 4 and hands out 4
    CHECK(take(Walk::sequence) == 4);
    five.abort(Error::cancel);
    REQUIRE_FALSE(a.finish());  // A ends at 6: nothing but the aborted 5 lies above the floor
    CHECK(ended(Walk::sequence));
}

TEST_CASE_FIXTURE(Front, "r10_a_floor_skipped_to_the_largest_u64_ends_the_range") {
    land(a, 0);
    route.serve_from(a.consume());
    reader.set_range(0, 10);
    reader.skip_ordered(std::numeric_limits<std::uint64_t>::max());
    // The floor is past every sequence: the range is used up, not wrapped back to 0.
    CHECK(ended(Walk::sequence));
}

TEST_CASE_FIXTURE(Front, "r10_a_sequence_walk_that_takes_the_last_sequence_ends_with_its_copy") {
    land(a, moq::model::last_sequence);
    a.finish();
    route.serve_from(a.consume());
    reader.set_range(moq::model::last_sequence, std::nullopt);
    CHECK(take(Walk::sequence) == moq::model::last_sequence);
    CHECK(reader.ordered_floor() == moq::model::last_sequence);
    CHECK(ended(Walk::sequence));
}

// Rust parity (ending_the_front_releases_a_stalled_group): a handed-out group that stalls
// on a healthy copy looks past it once the route ends, not only once it moves: an end
// with an error ends the group with that error (R14).
TEST_CASE_FIXTURE(Front, "ending_the_route_with_an_error_releases_a_stalled_group") {
    auto created = a.create_group(0);
    auto& open = std::get<moq::model::GroupProducer>(created);
    route.serve_from(a.consume());
    REQUIRE(reader.poll_peek_group(waiter, Walk::arrival).is_ready());
    auto handed = reader.take();
    REQUIRE(handed.has_value());
    CHECK(handed->poll_read_frame(waiter).is_pending());
    task.reset();
    route.end(Error::unroutable);
    CHECK(task.wakes() >= 1);
    auto answer = handed->poll_read_frame(waiter);
    REQUIRE(answer.is_ready());
    REQUIRE(answer.value().is_error());
    CHECK(answer.value().error() == Error::unroutable);
    REQUIRE_FALSE(open.write_frame("late"));  // final: the copy writing on changes nothing
    CHECK(handed->poll_read_frame(waiter).value().error() == Error::unroutable);
}

// Rust parity (terminal_states_are_exclusive): the first end of a route stands; a later
// end, clean or not, changes nothing (R1).
TEST_CASE_FIXTURE(Front, "the_first_end_of_a_route_stands") {
    route.serve_from(a.consume());
    land(a, 0);
    CHECK(take(Walk::arrival) == 0);
    route.end(std::nullopt);
    route.end(Error::cancel);
    CHECK(pending(Walk::arrival));  // ended cleanly: the serving copy reads on
    REQUIRE_FALSE(a.finish());
    CHECK(ended(Walk::arrival));  // a clean end, not the later cancel

    moq::model::Route failed;
    moq::kio::Producer<Preferences> unused;
    moq::model::ResumeReader other{failed.consume(), unused.consume(), clock};
    failed.end(Error::route_failed);
    failed.end(std::nullopt);
    CHECK(error_of(other, Walk::sequence) == Error::route_failed);
}

// Rust parity (consecutive_updates_wake): a reader that applied one preferences update
// re-registered, so the next update wakes it again; an update that changes nothing wakes
// it too (a write is a change) and leaves the copies' demand as it was (R16).
TEST_CASE_FIXTURE(Front, "every_preferences_update_wakes_the_reader_again") {
    route.serve_from(a.consume());
    park_until_armed(Walk::arrival);
    preferences.modify([](Preferences& p) { p.priority = 1; });
    CHECK(task.wakes() >= 1);  // the walk before the gate registered the task itself too
    CHECK(pending(Walk::arrival));
    task.reset();
    preferences.modify([](Preferences& p) { p.priority = 2; });
    CHECK(task.wakes() == 1);
    CHECK(pending(Walk::arrival));
    CHECK(reader.copies().back().demand.priority == 2);
    task.reset();
    preferences.modify([](Preferences&) {});  // the same preferences again
    CHECK(task.wakes() == 1);
    CHECK(pending(Walk::arrival));
    CHECK(reader.copies().back().demand.priority == 2);
    task.reset();
    preferences.modify([](Preferences& p) { p.priority = 3; });
    CHECK(task.wakes() == 1);
    CHECK(pending(Walk::arrival));
    CHECK(reader.copies().back().demand.priority == 3);
}

// Rust parity (subscribers_read_independently): two readers of one route each hand out
// every group; one taking a group takes nothing from the other.
TEST_CASE_FIXTURE(Front, "two_readers_of_one_route_read_independently") {
    moq::model::ResumeReader second{route.consume(), preferences.consume(), clock};
    land(a, 0);
    land(a, 1);
    route.serve_from(a.consume());
    CHECK(take(Walk::arrival) == 0);
    CHECK(take(Walk::arrival) == 1);
    for (std::uint64_t sequence : {0, 1}) {
        auto peek = second.poll_peek_group(waiter, Walk::sequence);
        REQUIRE(peek.is_ready());
        REQUIRE(peek.value().is_item());
        CHECK(peek.value().item()->sequence == sequence);
        CHECK(second.take()->sequence() == sequence);
    }
    CHECK(second.poll_peek_group(waiter, Walk::sequence).is_pending());
    CHECK(pending(Walk::arrival));
}

// Rust parity (abort_drains_before_erroring): a route that ends with an error still lets
// the reader hand out what its serving copy has, then answers the error.
TEST_CASE_FIXTURE(Front, "a_route_ended_with_an_error_hands_out_what_its_copy_has_first") {
    land(a, 0);
    land(a, 1);
    route.serve_from(a.consume());
    route.end(Error::cancel);
    CHECK(take(Walk::arrival) == 0);
    CHECK(take(Walk::arrival) == 1);
    CHECK(error_of(reader, Walk::arrival) == Error::cancel);
}

// Rust parity (dropped_producer_keeps_a_live_segment_serving,
// info_fails_when_the_producer_dies_segmentless): a route whose producer goes without an
// end leaves its serving copy serving to that copy's end; with no copy served the read
// ends with `dropped` (R13).
TEST_CASE_FIXTURE(Front, "a_route_whose_producer_goes_serves_on_from_its_copy_or_ends_dropped") {
    auto front = std::make_unique<moq::model::Route>();
    moq::model::ResumeReader served{front->consume(), preferences.consume(), clock};
    land(a, 0);
    front->serve_from(a.consume());
    auto first = served.poll_peek_group(waiter, Walk::arrival);
    REQUIRE(first.value().is_item());
    served.take();
    front.reset();
    CHECK(served.poll_peek_group(waiter, Walk::arrival).is_pending());  // the copy is live
    land(a, 1);
    auto second = served.poll_peek_group(waiter, Walk::arrival);
    REQUIRE(second.is_ready());
    REQUIRE(second.value().is_item());
    CHECK(second.value().item()->sequence == 1);
    served.take();
    REQUIRE_FALSE(a.finish());
    CHECK(served.poll_peek_group(waiter, Walk::arrival).value().is_end());

    auto never = std::make_unique<moq::model::Route>();
    moq::model::ResumeReader unserved{never->consume(), preferences.consume(), clock};
    CHECK(unserved.poll_peek_group(waiter, Walk::sequence).is_pending());
    task.reset();
    never.reset();
    CHECK(task.wakes() >= 1);
    CHECK(error_of(unserved, Walk::sequence) == Error::dropped);
}

// Rust parity (start_at_drops_parked_groups_below_the_floor): a group held past the
// range's end is dropped once the range's start rises past it (R5, R12).
TEST_CASE_FIXTURE(Front, "raising_the_range_start_drops_the_groups_held_below_it") {
    hold_one_past_the_end();
    reader.set_range(2, 10);
    land(a, 2);
    CHECK(take(Walk::arrival) == 2);  // not the held 1, now below the start
    CHECK(pending(Walk::arrival));
}

// A reader moved while parked (into a subscriber, as an export builds one) keeps its
// registrations: the next group wakes the task and the moved reader hands it out. A
// take with no peek in hand hands out nothing and moves nothing.
TEST_CASE_FIXTURE(Front, "a_reader_moved_while_parked_still_wakes_and_reads") {
    route.serve_from(a.consume());
    CHECK_FALSE(reader.take().has_value());
    park_until_armed(Walk::arrival);
    moq::model::TrackSubscriber subscriber{std::move(reader)};
    CHECK(subscriber.poll_group(waiter, Walk::arrival).is_pending());  // the same task: no walk
    task.reset();
    land(a, 0);
    CHECK(task.wakes() >= 1);
    auto group = subscriber.poll_group(waiter, Walk::arrival);
    REQUIRE(group.is_ready());
    REQUIRE(group.value().is_item());
    CHECK(group.value().item().sequence() == 0);
    CHECK(subscriber.poll_group(waiter, Walk::arrival).is_pending());
    CHECK_FALSE(subscriber.reader().take().has_value());
}

// Polled again after its error, with nothing changed, the reader answers the error
// again (R13).
TEST_CASE_FIXTURE(Front, "a_reader_polled_after_its_error_answers_it_again") {
    route.serve_from(a.consume());
    route.end(Error::unroutable);
    for (int again = 0; again < 3; ++again) {
        CHECK(error_of(reader, Walk::sequence) == Error::unroutable);
        CHECK(error_of(reader, Walk::arrival) == Error::unroutable);
    }
}

// A verdict is the content's own answer: a route that ends, cleanly or not, does not
// replace it; only a route that moves on to another copy is looked at (R14).
TEST_CASE_FIXTURE(Front, "a_verdict_stands_when_the_route_ends") {
    auto kept = land_kept(a, 0);
    route.serve_from(a.consume());
    REQUIRE(reader.poll_peek_group(waiter, Walk::arrival).is_ready());
    auto handed = reader.take();
    REQUIRE(handed.has_value());
    kept.abort(Error::cancel);
    route.end(std::nullopt);
    auto answer = handed->poll_read_frame(waiter);
    REQUIRE(answer.is_ready());
    REQUIRE(answer.value().is_error());
    CHECK(answer.value().error() == Error::cancel);
}

// A peek the range has left behind is dropped, not handed out later (R10).
TEST_CASE_FIXTURE(Front, "r10_a_peek_below_a_raised_range_start_is_not_handed_out") {
    route.serve_from(a.consume());
    land(a, 0);
    land(a, 1);
    REQUIRE(peek(Walk::arrival) == 0);
    reader.set_range(1, std::nullopt);
    CHECK(take(Walk::arrival) == 1);
}

// A sequence walk's peek at or below a skipped-to floor is dropped (R17's skip_ordered).
TEST_CASE_FIXTURE(Front, "r17_a_sequence_peek_at_a_skipped_floor_is_not_handed_out") {
    route.serve_from(a.consume());
    land(a, 0);
    land(a, 1);
    REQUIRE(peek(Walk::sequence) == 0);
    reader.skip_ordered(0);
    CHECK(take(Walk::sequence) == 1);
}

// A peek at or past a lowered range end is dropped: the group waits past the end (R12).
TEST_CASE_FIXTURE(Front, "r12_a_peek_at_a_lowered_range_end_is_not_handed_out") {
    route.serve_from(a.consume());
    land(a, 1);
    REQUIRE(peek(Walk::arrival) == 1);
    reader.set_range(0, 1);
    CHECK(pending(Walk::arrival));
}
