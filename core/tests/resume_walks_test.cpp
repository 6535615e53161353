// The resume reader used in ways the resume suite never drives (it uses one walk per
// reader and takes straight after each Ready peek): both walks on one reader, a peek
// polled again or changed (set_range, skip_ordered) before its take, a copy whose
// producer goes away without an abort, the recover of a group the serving copy refuses,
// and which copy a take came from.
#include <doctest/doctest.h>

#include <chrono>
#include <memory>
#include <optional>

#include "model/expiry.hpp"
#include "support/front.hpp"
#include "support/one_group.hpp"

using moq::model::DeadlineExpiry;
using moq::model::Error;
using moq::model::GroupProducer;
using moq::model::Preferences;
using moq::model::Walk;
using moq::test::frame_of;
using moq::test::Front;
using namespace std::chrono_literals;

// ---- both walks on one reader ----

// Each walk keeps its own record: what the arrival walk handed out is still the sequence
// walk's to hand out (R5), and the other way round.
TEST_CASE_FIXTURE(Front, "r5_the_arrival_and_sequence_walks_of_one_reader_each_hand_out_every_group") {
    route.serve_from(a.consume());
    land(a, 0);
    CHECK(take(Walk::arrival) == 0);
    CHECK(take(Walk::sequence) == 0);
    land(a, 1);
    CHECK(take(Walk::sequence) == 1);
    CHECK(take(Walk::arrival) == 1);
}

// A replaced copy that the arrival walk has nothing more from, but the sequence walk still
// waits on, is kept by an arrival walk's let-go (R8 is judged per walk).
TEST_CASE_FIXTURE(Front, "r8_an_arrival_walk_keeps_a_replaced_copy_the_sequence_walk_still_retains") {
    route.serve_from(a.consume());
    land(a, 4);
    CHECK(take(Walk::arrival) == 4);
    route.serve_from(b.consume());   // B is read from 4, the newest handed out
    CHECK(pending(Walk::arrival));   // A goes: it has nothing more for either walk
    CHECK(pending(Walk::sequence));  // B's sequence cursor, from 4: 4 is missing for it
    route.park();                    // B is replaced, until 4
    // For the arrival walk 4 is handed out; the sequence walk may still get it from B.
    CHECK(pending(Walk::arrival));
    land(b, 4);
    CHECK(take(Walk::sequence) == 4);
}

// Handed out by the arrival walk, a group held past the range's end is no longer held: it
// does not keep the sequence walk from ending with its copy (R11, R12).
TEST_CASE_FIXTURE(Front, "r12_a_held_group_once_handed_out_no_longer_keeps_a_sequence_walk_open") {
    route.serve_from(a.consume());
    reader.set_range(0, 1);
    land(a, 7);
    CHECK(pending(Walk::arrival));  // 7 is held past the range's end
    reader.set_range(0, 10);
    CHECK(take(Walk::arrival) == 7);
    CHECK(take(Walk::sequence) == 7);
    REQUIRE_FALSE(a.finish());  // A ends at 8: the sequence walk's floor reached it
    CHECK(ended(Walk::sequence));
}

// A sequence peek in hand pins its copy past the copy's grace; the arrival walk that
// parks meanwhile waits on no copy whose grace ran out, so it arms no deadline (R8).
TEST_CASE_FIXTURE(Front, "r8_an_arrival_walk_arms_no_grace_for_a_copy_past_it_that_a_sequence_peek_pins") {
    land(a, 0);
    land(a, 1);
    land(a, 3);  // A lacks 2
    route.serve_from(a.consume());
    CHECK(take(Walk::arrival) == 0);
    CHECK(take(Walk::arrival) == 1);
    CHECK(take(Walk::arrival) == 3);
    route.serve_from(b.consume());       // A is replaced, until 3, grace 1s
    REQUIRE(peek(Walk::sequence) == 0);  // A's 0, in hand: A stays
    clock.advance_by(1s);                // A's grace is over, exactly
    CHECK(pending(Walk::arrival));
    CHECK_FALSE(clock.next_deadline().has_value());
    // The sequence walk waits no more for 2 either.
    CHECK(take(Walk::sequence) == 0);
    CHECK(take(Walk::sequence) == 1);
    CHECK(take(Walk::sequence) == 3);
}

// A replaced copy the arrival walk read to its end is not waited on by that walk, even
// while the sequence walk retains it; only the sequence walk arms its grace (R8, R15).
TEST_CASE_FIXTURE(Front, "r8_only_the_walk_that_retains_a_replaced_copy_arms_its_grace") {
    land(a, 0);
    land(a, 2);
    REQUIRE_FALSE(a.finish());  // A ends at 3 and lacks 1, which may still land
    route.serve_from(a.consume());
    CHECK(take(Walk::arrival) == 0);
    CHECK(take(Walk::arrival) == 2);
    CHECK(take(Walk::sequence) == 0);
    route.serve_from(b.consume());  // A is replaced, until 2
    CHECK(pending(Walk::arrival));  // A has nothing more for the arrival walk
    CHECK_FALSE(clock.next_deadline().has_value());
    CHECK(pending(Walk::sequence));  // 2 waits for 1, which A may still land
    CHECK(clock.next_deadline().has_value());
}

// ---- a peek polled again, or changed, before its take ----

// A held group offered as a peek is answered again by the next poll, then handed out (R12).
TEST_CASE_FIXTURE(Front, "r12_a_held_group_peeked_twice_before_its_take_is_handed_out") {
    route.serve_from(a.consume());
    reader.set_range(0, 1);
    land(a, 3);
    CHECK(pending(Walk::arrival));  // 3 is held past the range's end
    reader.set_range(0, std::nullopt);
    REQUIRE(peek(Walk::arrival) == 3);
    REQUIRE(peek(Walk::arrival) == 3);
    CHECK(take(Walk::arrival) == 3);
}

// A set_range that leaves a held group's peek in range keeps it: the group is handed out,
// not lost (its copy's cursor already went past it) (R5, R12).
TEST_CASE_FIXTURE(Front, "r12_a_held_peek_still_in_a_new_range_is_handed_out") {
    hold_one_past_the_end();
    reader.set_range(0, 5);
    REQUIRE(peek(Walk::arrival) == 1);
    reader.set_range(1, 5);  // 1 is the new start: still in range
    CHECK(take(Walk::arrival) == 1);
}

// A held peek the range drops before its take is held again, not lost: its copy's cursor
// is past it, so only held_ can offer it once the range takes it in again (R12).
TEST_CASE_FIXTURE(Front, "r12_a_held_peek_the_range_drops_before_its_take_is_held_again") {
    hold_one_past_the_end();
    reader.set_range(0, 5);
    REQUIRE(peek(Walk::arrival) == 1);
    reader.set_range(0, 1);  // 1 is past the end again: the peek goes
    CHECK(ended(Walk::arrival));
    reader.set_range(0, 5);
    CHECK(take(Walk::arrival) == 1);
}

// A held peek that the other walk's peek takes the place of is held again, not lost (R12).
TEST_CASE_FIXTURE(Front, "r12_a_held_peek_the_other_walks_peek_replaces_is_held_again") {
    hold_one_past_the_end();
    reader.set_range(0, 5);
    REQUIRE(peek(Walk::arrival) == 1);
    CHECK(take(Walk::sequence) == 0);  // the sequence walk's own peek takes the one slot
    CHECK(take(Walk::arrival) == 1);
}

// A sequence peek above a skipped-to floor stays in hand: the take hands it out (R5).
TEST_CASE_FIXTURE(Front, "r5_a_sequence_peek_above_a_skipped_floor_is_still_handed_out") {
    route.serve_from(a.consume());
    land(a, 5);
    REQUIRE(peek(Walk::sequence) == 5);
    reader.skip_ordered(1);
    auto group = reader.take();  // no poll between: the peek in hand itself
    REQUIRE(group.has_value());
    CHECK(group->sequence() == 5);
    CHECK(reader.ordered_floor() == 5);
}

// skip_ordered moves the floor of sequence walks only: an arrival walk's held peek at or
// below that floor is still handed out (R5, R12).
TEST_CASE_FIXTURE(Front, "r5_a_skip_ordered_leaves_an_arrival_walks_held_peek_in_hand") {
    hold_one_past_the_end();
    reader.set_range(0, 5);
    REQUIRE(peek(Walk::arrival) == 1);
    reader.skip_ordered(1);
    CHECK(take(Walk::arrival) == 1);
}

// A skip to a floor already reached changes nothing, so a parked walk stays parked: its
// re-poll walks nothing (R5, I1).
TEST_CASE_FIXTURE(Front, "a_skip_ordered_that_does_not_raise_the_floor_keeps_the_gate_armed") {
    land(a, 0);
    route.serve_from(a.consume());
    CHECK(take(Walk::sequence) == 0);
    park_until_armed(Walk::sequence);
    const auto walks = reader.walk_counter(Walk::sequence).walks;
    reader.skip_ordered(0);
    CHECK(reader.gate_armed(Walk::sequence));
    CHECK(pending(Walk::sequence));
    CHECK(reader.walk_counter(Walk::sequence).walks == walks);
}

// ---- a copy whose producer went away ----

// A finished copy whose producer goes away short of its end answers `dropped` (T7); a
// floor raised past its last hole does not turn that into an end: the read waits for the
// next route, and a route ended cleanly ends it with the copy's error (R13).
TEST_CASE_FIXTURE(Front, "r13_a_copy_that_answered_dropped_stays_failed_when_the_floor_rises") {
    auto copy = std::make_unique<moq::model::TrackProducer>();
    land(*copy, 0);
    auto two = land_kept(*copy, 2);
    REQUIRE_FALSE(copy->finish());  // ends at 3; 1 may still land
    route.serve_from(copy->consume());
    CHECK(take(Walk::sequence) == 0);
    two.abort(Error::cancel);
    copy.reset();                    // gone without an abort, 1 never landed
    CHECK(pending(Walk::sequence));  // the serving copy failed: wait for the next route
    reader.skip_ordered(1);          // the floor passes 1; only the aborted 2 lies above it
    CHECK(pending(Walk::sequence));
    route.end(std::nullopt);
    CHECK(error_of(reader, Walk::sequence) == Error::dropped);
}

// ---- the recover of a taken group ----

namespace {

// Group 0 handed out from copy A, then aborted with cancel there; `fail_b` sets copy B up
// before the route serves it. The error the handed-out group's next read answers.
template <class FailB>
Error error_after_the_route_moves(Front& front, FailB fail_b) {
    auto zero = front.land_kept(front.a, 0);
    front.route.serve_from(front.a.consume());
    REQUIRE(front.peek(Walk::arrival) == 0);
    auto handed = front.reader.take();
    REQUIRE(handed.has_value());
    zero.abort(Error::cancel);
    fail_b();
    front.route.serve_from(front.b.consume());
    auto answer = handed->poll_read_frame(front.waiter);
    REQUIRE(answer.is_ready());
    REQUIRE(answer.value().is_error());
    return answer.value().error();
}

}  // namespace

// A group whose copy aborted it looks past its copy once the route moved; a serving copy
// that refuses the group ends it with that refusal, not the group's own abort (R14).
TEST_CASE_FIXTURE(Front, "r14_a_failed_group_the_serving_copy_refuses_ends_with_its_refusal") {
    // B ends at 0: it never has group 0.
    CHECK(error_after_the_route_moves(*this, [&] { REQUIRE_FALSE(b.finish()); }) == Error::not_found);
}

TEST_CASE_FIXTURE(Front, "r14_a_failed_group_the_serving_copy_has_failed_for_ends_with_its_error") {
    CHECK(error_after_the_route_moves(*this, [&] { b.abort(Error::route_failed); }) == Error::route_failed);
}

// ---- which copy a take came from ----

// taken_from() names the route generation of the copy each take came from: the serving
// copy, or a replaced one supplying a late group (R4, R8).
TEST_CASE_FIXTURE(Front, "taken_from_names_the_generation_of_the_copy_each_take_came_from") {
    CHECK_FALSE(reader.taken_from().has_value());
    land(a, 0);
    land(a, 2);
    route.serve_from(a.consume());  // generation 1
    CHECK(take(Walk::arrival) == 0);
    CHECK(reader.taken_from() == 1);
    CHECK(take(Walk::arrival) == 2);
    land(b, 3);
    route.serve_from(b.consume());  // generation 2; A is replaced, until 2
    CHECK(take(Walk::arrival) == 3);
    CHECK(reader.taken_from() == 2);
    land(a, 1);  // late, within A's until and grace
    CHECK(take(Walk::arrival) == 1);
    CHECK(reader.taken_from() == 1);
}

// ---- what a dropped peek and a take leave held ----

// A sequence peek the range drops stays in its copy: it is not held past the range's end
// (only an arrival walk holds), so once the sequence walk hands it out the walk ends with
// its copy (R11, R12).
TEST_CASE_FIXTURE(Front, "r12_a_sequence_peek_the_range_drops_is_not_held_and_the_walk_ends_with_its_copy") {
    route.serve_from(a.consume());
    land(a, 3);
    REQUIRE_FALSE(a.finish());  // A ends at 4
    REQUIRE(peek(Walk::sequence) == 3);
    reader.set_range(0, 3);  // 3 is past the end: the peek goes, back to A's cursor
    reader.set_range(0, std::nullopt);
    CHECK(take(Walk::sequence) == 3);
    CHECK(ended(Walk::sequence));  // the floor reached A's end, and nothing is held
}

// A held group the arrival walk has in hand is offered, no longer held past the range's
// end (it is held again only if its peek goes): it does not keep the sequence walk from
// ending with its copy (R11, R12).
TEST_CASE_FIXTURE(Front, "r12_a_held_group_in_the_arrival_walks_hand_does_not_keep_a_sequence_walk_open") {
    route.serve_from(a.consume());
    reader.set_range(0, 1);
    land(a, 0);
    land(a, 1);
    REQUIRE_FALSE(a.finish());  // A ends at 2
    CHECK(take(Walk::arrival) == 0);
    CHECK(ended(Walk::arrival));  // 1 is held past the range's end
    reader.set_range(0, 5);
    CHECK(take(Walk::sequence) == 0);
    CHECK(take(Walk::sequence) == 1);
    REQUIRE(peek(Walk::arrival) == 1);  // the held 1, in hand
    CHECK(ended(Walk::sequence));       // the floor reached A's end
    CHECK(take(Walk::arrival) == 1);    // the arrival walk's peek is still in hand
}

// Handed out, a held group is held no more from any copy: another copy's group of that
// sequence, held beside it, does not keep the sequence walk open (R11, R12).
TEST_CASE_FIXTURE(Front, "r12_a_held_group_once_handed_out_is_held_from_no_other_copy") {
    hold_one_past_the_end();        // 1 is held from A
    route.serve_from(b.consume());  // A is replaced, until 1; B is read from 0
    land(b, 1);
    REQUIRE_FALSE(b.finish());    // B ends at 2
    CHECK(ended(Walk::arrival));  // 1 is held from B too
    reader.set_range(0, 5);
    CHECK(take(Walk::arrival) == 1);
    reader.skip_ordered(1);        // the sequence walk's floor reaches B's end
    CHECK(ended(Walk::sequence));  // and no copy's 1 is held any more
}

// The sequence walk handing out a sequence the arrival walk holds leaves it held: each walk
// keeps its own record, so the arrival walk still hands it out (R5, R12).
TEST_CASE_FIXTURE(Front, "r5_a_held_group_the_sequence_walk_hands_out_is_still_the_arrival_walks") {
    hold_one_past_the_end();
    reader.set_range(0, 5);
    CHECK(take(Walk::sequence) == 0);
    CHECK(take(Walk::sequence) == 1);
    CHECK(take(Walk::arrival) == 1);
}

// ---- a peek a new range still covers ----

// A set_range that keeps the peek in hand in range (at the new start, below the new end)
// leaves it in hand: the take that follows hands it out without another poll (R5).
TEST_CASE_FIXTURE(Front, "r5_a_peek_a_new_range_still_covers_is_handed_out_by_the_next_take") {
    route.serve_from(a.consume());
    land(a, 5);
    REQUIRE(peek(Walk::sequence) == 5);
    reader.set_range(5, 6);  // 5 is both the new start and the last sequence in range
    auto group = reader.take();
    REQUIRE(group.has_value());
    CHECK(group->sequence() == 5);
}

// ---- which walk arms a grace ----

// A replaced copy that only the arrival walk retains (it lacks 1, which that walk never
// handed out) is kept by the sequence walk's let-go, but that walk, whose floor is past
// everything the copy may still land, arms no grace deadline and is not woken by it
// (R8, R15).
TEST_CASE_FIXTURE(Front, "r15_a_walk_arms_no_grace_for_a_copy_only_the_other_walk_retains") {
    land(a, 0);
    land(a, 2);  // A lacks 1
    route.serve_from(a.consume());
    CHECK(take(Walk::arrival) == 0);
    CHECK(take(Walk::arrival) == 2);
    CHECK(take(Walk::sequence) == 0);
    CHECK(take(Walk::sequence) == 2);  // the floor is 2
    route.serve_from(b.consume());     // A is replaced, until 2, grace 1s
    CHECK(pending(Walk::sequence));
    CHECK_FALSE(clock.next_deadline().has_value());
    task.reset();
    clock.advance_by(1s);
    CHECK(task.wakes() == 0);
}

// ---- a held group below the sequence walk's floor ----

// A group the arrival walk holds past the range's end keeps only that walk open: the
// sequence walk, which never hands out a held group, handed 1 out from its copy (its floor
// is 1, its copy's end 2) and ends now, not after the arrival walk's take (R11, R12).
TEST_CASE_FIXTURE(Front, "r12_a_held_group_below_the_sequence_walks_floor_does_not_keep_that_walk_open") {
    hold_one_past_the_end();
    REQUIRE_FALSE(a.finish());  // A ends at 2
    reader.set_range(0, 5);
    CHECK(take(Walk::sequence) == 0);
    CHECK(take(Walk::sequence) == 1);
    CHECK(ended(Walk::sequence));
    CHECK(take(Walk::arrival) == 1);
    CHECK(ended(Walk::arrival));
}

// ---- the until of a copy replaced before it had a group ----

// A copy replaced before it had any group has the newest handed out as its until (R4): a
// group it lands later, past that, comes from no replaced copy.
TEST_CASE_FIXTURE(Front, "r4_a_copy_replaced_before_its_first_group_supplies_nothing_past_the_newest_handed_out") {
    route.serve_from(a.consume());
    land(a, 0);
    CHECK(take(Walk::arrival) == 0);
    route.serve_from(b.consume());
    CHECK(pending(Walk::arrival));  // B adopted, with nothing yet
    route.serve_from(c.consume());
    CHECK(pending(Walk::arrival));  // B replaced: until 0
    land(b, 1);
    CHECK(pending(Walk::arrival));
    land(c, 1);
    CHECK(take(Walk::arrival) == 1);
    CHECK(reader.taken_from() == 3);  // C's, the third generation
}

// ---- an empty range, and the recover of a handed-out group ----

// R8, R10: a range that ends at 0 holds no sequence, so no replaced copy may still land one
// in it: the walk ends at once instead of waiting out the copy's grace.
TEST_CASE_FIXTURE(Front, "r10_a_range_ending_at_zero_ends_the_walk_without_waiting_on_a_replaced_copy") {
    route.serve_from(a.consume());
    land(a, 0);
    land(a, 2);  // A lacks 1
    CHECK(take(Walk::arrival) == 0);
    CHECK(take(Walk::arrival) == 2);
    route.serve_from(b.consume());  // A is replaced, until 2: it may still land 1
    CHECK(pending(Walk::arrival));  // retained within its grace
    reader.set_range(0, 0);
    CHECK(ended(Walk::arrival));
}

// R14, G10: a handed-out group goes stale by the reader's own budget (its preferences'
// max_age, which the group's recover reads) before the expiry's own.
TEST_CASE_FIXTURE(Front, "r14_a_handed_out_group_goes_stale_by_the_readers_budget") {
    route.serve_from(a.consume());
    auto created = a.create_group(0);
    REQUIRE(std::holds_alternative<GroupProducer>(created));
    REQUIRE_FALSE(std::get<GroupProducer>(created).start_frame(2));  // a frame still arriving
    preferences.modify([](Preferences& wanted) { wanted.max_age = 1s; });
    REQUIRE(peek(Walk::arrival) == 0);
    auto group = reader.take();
    REQUIRE(group.has_value());
    group->with_expiry(std::make_shared<DeadlineExpiry>(clock, clock.now(), 10s));
    CHECK(group->poll_read_frame(waiter).is_pending());
    clock.advance_by(2s);
    auto answer = group->poll_read_frame(waiter);
    REQUIRE(answer.is_ready());
    REQUIRE(answer.value().is_error());
    CHECK(answer.value().error() == Error::old);
}

// R14: a handed-out group whose copy fails with an error that is no verdict waits for the
// route to move, and goes on from the copy the route serves next.
TEST_CASE_FIXTURE(Front, "r14_a_handed_out_group_its_copy_fails_goes_on_from_the_next_copy") {
    route.serve_from(a.consume());
    auto created = a.create_group(0);
    REQUIRE(std::holds_alternative<GroupProducer>(created));
    REQUIRE(peek(Walk::arrival) == 0);
    auto group = reader.take();
    REQUIRE(group.has_value());
    std::get<GroupProducer>(created).abort(Error::route_failed);
    CHECK(group->poll_read_frame(waiter).is_pending());
    land(b, 0);
    route.serve_from(b.consume());
    CHECK(frame_of(group->poll_read_frame(waiter)) == "group 0");
}

// R5, R12: a sequence peek the range drops goes back to its copy, not to the held groups:
// the arrival walk still hands the copy's groups out in the order they arrived (5, then 3),
// not the dropped 3 first as if it had been held past the range's end.
TEST_CASE_FIXTURE(Front, "r12_a_dropped_sequence_peek_is_not_held_for_the_arrival_walk") {
    route.serve_from(a.consume());
    land(a, 5);
    land(a, 3);
    REQUIRE(peek(Walk::sequence) == 3);
    reader.set_range(0, 3);  // 3 is past the end: the peek goes
    reader.set_range(0, std::nullopt);
    CHECK(take(Walk::arrival) == 5);
    CHECK(take(Walk::arrival) == 3);
}

// R14: a handed-out group's recover follows the copy it adopted. Once its read went on from
// B, a failure of B's group waits for the route to move past B, instead of taking B's
// failed group again as a replacement, and goes on from the copy served next.
TEST_CASE_FIXTURE(Front, "r14_a_group_read_that_went_on_from_a_replacement_waits_past_that_copy_when_it_fails") {
    route.serve_from(a.consume());
    auto from_a = std::get<GroupProducer>(a.create_group(0));
    REQUIRE(peek(Walk::arrival) == 0);
    auto group = reader.take();
    REQUIRE(group.has_value());
    from_a.abort(Error::route_failed);
    CHECK(group->poll_read_frame(waiter).is_pending());
    auto from_b = std::get<GroupProducer>(b.create_group(0));
    REQUIRE_FALSE(from_b.write_frame("first"));
    route.serve_from(b.consume());
    CHECK(frame_of(group->poll_read_frame(waiter)) == "first");
    from_b.abort(Error::route_failed);
    CHECK(group->poll_read_frame(waiter).is_pending());  // B is the copy it follows now
    auto from_c = std::get<GroupProducer>(c.create_group(0));
    REQUIRE_FALSE(from_c.write_frame("first"));
    REQUIRE_FALSE(from_c.write_frame("second"));
    route.serve_from(c.consume());
    CHECK(frame_of(group->poll_read_frame(waiter)) == "second");
}
