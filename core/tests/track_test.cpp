#include <doctest/doctest.h>

#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <variant>

#include "kio/waiter.hpp"
#include "model/track.hpp"
#include "support/counting_waker.hpp"

using moq::kio::Waiter;
using moq::model::Error;
using moq::model::GroupProducer;
using moq::model::TrackCursor;
using moq::model::TrackProducer;
using moq::model::Walk;
using moq::test::WakeCounter;

namespace {

struct OneTrack {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    TrackProducer producer;

    GroupProducer create(std::uint64_t sequence) {
        auto created = producer.create_group(sequence);
        REQUIRE(std::holds_alternative<GroupProducer>(created));
        return std::get<GroupProducer>(std::move(created));
    }
};

// The sequence the cursor hands out next, taking it.
std::uint64_t take_next(TrackCursor& cursor, const Waiter& waiter) {
    auto peek = cursor.poll_peek(waiter);
    REQUIRE(peek.is_ready());
    REQUIRE(peek.value().is_item());
    const std::uint64_t sequence = peek.value().item()->sequence;
    CHECK(cursor.take()->sequence == sequence);
    return sequence;
}

bool ended(TrackCursor& cursor, const Waiter& waiter) {
    auto peek = cursor.poll_peek(waiter);
    return peek.is_ready() && peek.value().is_end();
}

}  // namespace

TEST_CASE_FIXTURE(OneTrack, "an_arrival_walk_hands_out_groups_in_landing_order_then_ends") {
    TrackCursor cursor = producer.consume().cursor(Walk::arrival);
    create(5);
    create(3);
    create(4);
    CHECK(take_next(cursor, waiter) == 5);
    CHECK(take_next(cursor, waiter) == 3);
    CHECK(take_next(cursor, waiter) == 4);
    CHECK(cursor.poll_peek(waiter).is_pending());
    producer.finish();
    CHECK(ended(cursor, waiter));
}

TEST_CASE_FIXTURE(OneTrack, "a_sequence_walk_skips_late_arrivals") {
    TrackCursor cursor = producer.consume().cursor(Walk::sequence);
    create(5);
    CHECK(take_next(cursor, waiter) == 5);
    create(3);
    create(7);
    CHECK(take_next(cursor, waiter) == 7);  // 3 came too late
    producer.finish();
    CHECK(ended(cursor, waiter));
}

TEST_CASE_FIXTURE(OneTrack, "a_parked_cursor_wakes_for_a_new_group") {
    TrackCursor cursor = producer.consume().cursor(Walk::arrival);
    CHECK(cursor.poll_peek(waiter).is_pending());
    create(0);
    CHECK(task.wakes() == 1);
    CHECK(take_next(cursor, waiter) == 0);
}

TEST_CASE_FIXTURE(OneTrack, "finishing_wakes_a_parked_cursor_with_the_end") {
    TrackCursor cursor = producer.consume().cursor(Walk::sequence);
    create(0);
    CHECK(take_next(cursor, waiter) == 0);
    CHECK(cursor.poll_peek(waiter).is_pending());
    producer.finish();
    CHECK(task.wakes() == 1);
    CHECK(ended(cursor, waiter));
}

TEST_CASE_FIXTURE(OneTrack, "aborting_wakes_a_parked_cursor_with_the_error") {
    TrackCursor cursor = producer.consume().cursor(Walk::arrival);
    CHECK(cursor.poll_peek(waiter).is_pending());
    producer.abort(Error::cancel);
    CHECK(task.wakes() == 1);
    auto peek = cursor.poll_peek(waiter);
    REQUIRE(peek.value().is_error());
    CHECK(peek.value().error() == Error::cancel);
}

TEST_CASE_FIXTURE(OneTrack, "groups_are_refused_after_finish_and_twice") {
    create(2);
    CHECK(std::get<Error>(producer.create_group(2)) == Error::closed);
    producer.finish();
    CHECK(std::get<Error>(producer.create_group(3)) == Error::closed);
    CHECK(std::holds_alternative<GroupProducer>(producer.create_group(1)));  // below the end: still lands
    CHECK(producer.finish() == Error::closed);
    auto appended = producer.append_group();
    CHECK(std::get<Error>(appended) == Error::closed);
}

TEST_CASE_FIXTURE(OneTrack, "an_idle_cursor_parks_for_the_task_polling_it") {
    WakeCounter other_task;
    const Waiter other{other_task.waker()};
    TrackCursor cursor = producer.consume().cursor(Walk::arrival);
    CHECK(cursor.poll_peek(waiter).is_pending());
    CHECK(cursor.poll_peek(waiter).is_pending());
    REQUIRE(cursor.gate_armed());
    const auto walks = cursor.walk_counter().walks;
    for (int i = 0; i < 5; ++i) CHECK(cursor.poll_peek(waiter).is_pending());
    CHECK(cursor.walk_counter().walks == walks);
    CHECK(cursor.poll_peek(other).is_pending());
    CHECK(cursor.walk_counter().walks == walks + 1);
    create(0);
    CHECK(other_task.wakes() == 1);
    CHECK(take_next(cursor, other) == 0);
}

TEST_CASE_FIXTURE(OneTrack, "raising_the_floor_disarms_the_gate") {
    TrackCursor cursor = producer.consume().cursor(Walk::sequence);
    create(0);
    REQUIRE_FALSE(producer.finish_at(5));  // 1 to 4 may still land
    CHECK(take_next(cursor, waiter) == 0);
    CHECK(cursor.poll_peek(waiter).is_pending());
    CHECK(cursor.poll_peek(waiter).is_pending());
    REQUIRE(cursor.gate_armed());
    cursor.raise_floor(5);  // at the end: nothing is left to wait for
    CHECK(ended(cursor, waiter));
}

// T8: a floor raised to where it is changes nothing: the armed gate stays armed, and the
// next poll by the same task answers without a walk.
TEST_CASE_FIXTURE(OneTrack, "t8_a_floor_raised_to_its_own_value_leaves_the_gate_armed") {
    TrackCursor cursor = producer.consume().cursor(Walk::sequence);
    create(0);
    CHECK(take_next(cursor, waiter) == 0);
    CHECK(cursor.poll_peek(waiter).is_pending());
    CHECK(cursor.poll_peek(waiter).is_pending());
    REQUIRE(cursor.gate_armed());
    const auto walks = cursor.walk_counter().walks;
    cursor.raise_floor(1);
    CHECK(cursor.gate_armed());
    CHECK(cursor.poll_peek(waiter).is_pending());
    CHECK(cursor.walk_counter().walks == walks);
}

// T8, T9: a raised floor drops only a peek below it. A peek at or above the new floor is
// still the one `take` hands out.
TEST_CASE("t8_a_raised_floor_keeps_a_peek_at_or_above_it_for_the_take") {
    for (const Walk walk : {Walk::sequence, Walk::arrival})
        for (const std::uint64_t floor : {2, 3}) {
            CAPTURE(floor);
            WakeCounter task;
            const Waiter waiter{task.waker()};
            TrackProducer producer;
            TrackCursor cursor = producer.consume().cursor(walk);
            REQUIRE(std::holds_alternative<GroupProducer>(producer.create_group(3)));
            REQUIRE(cursor.poll_peek(waiter).value().item()->sequence == 3);
            cursor.raise_floor(floor);
            const auto taken = cursor.take();
            REQUIRE(taken.has_value());
            CHECK(taken->sequence == 3);
        }
}

TEST_CASE_FIXTURE(OneTrack, "a_declared_end_below_the_newest_group_is_refused") {
    create(3);
    CHECK(producer.finish_at(2) == Error::closed);
    CHECK_FALSE(producer.finish_at(4));
}

// T6: a cursor never offers an aborted group.

TEST_CASE_FIXTURE(OneTrack, "t6_an_arrival_walk_skips_a_group_aborted_after_it_landed") {
    TrackCursor cursor = producer.consume().cursor(Walk::arrival);
    create(4);
    create(2).abort(Error::cancel);
    create(7);
    CHECK(take_next(cursor, waiter) == 4);
    CHECK(take_next(cursor, waiter) == 7);
    producer.finish();
    CHECK(ended(cursor, waiter));
}

TEST_CASE_FIXTURE(OneTrack, "t6_a_sequence_walk_skips_a_group_aborted_after_it_landed") {
    TrackCursor cursor = producer.consume().cursor(Walk::sequence);
    GroupProducer two = create(2);
    create(5);
    two.abort(Error::cancel);
    CHECK(take_next(cursor, waiter) == 5);
    CHECK(cursor.poll_peek(waiter).is_pending());
}

TEST_CASE_FIXTURE(OneTrack, "t6_an_arrival_peek_held_across_an_abort_is_skipped") {
    TrackCursor cursor = producer.consume().cursor(Walk::arrival);
    GroupProducer three = create(3);
    create(1);
    auto peek = cursor.poll_peek(waiter);
    REQUIRE(peek.is_ready());
    REQUIRE(peek.value().item()->sequence == 3);
    three.abort(Error::cancel);
    CHECK(take_next(cursor, waiter) == 1);
    CHECK(cursor.poll_peek(waiter).is_pending());
}

TEST_CASE_FIXTURE(OneTrack, "t6_a_sequence_peek_of_a_group_aborted_since_is_not_offered_again") {
    TrackCursor cursor = producer.consume().cursor(Walk::sequence);
    GroupProducer three = create(3);
    create(6);
    auto peek = cursor.poll_peek(waiter);
    REQUIRE(peek.is_ready());
    REQUIRE(peek.value().item()->sequence == 3);
    three.abort(Error::cancel);
    CHECK(take_next(cursor, waiter) == 6);
}

// T7: a sequence walk ends once every sequence left below the end is an aborted group,
// since none of them can land again.

TEST_CASE_FIXTURE(OneTrack, "t7_a_sequence_walk_ends_when_only_aborted_groups_are_left_below_the_end") {
    TrackCursor cursor = producer.consume().cursor(Walk::sequence, 5);
    REQUIRE_FALSE(producer.finish_at(7));
    create(6).abort(Error::cancel);
    CHECK(cursor.poll_peek(waiter).is_pending());  // 5 may still land
    GroupProducer five = create(5);
    CHECK(task.wakes() == 1);
    five.abort(Error::cancel);
    CHECK(ended(cursor, waiter));
}

TEST_CASE_FIXTURE(OneTrack, "t7_a_sequence_walk_waits_for_a_gap_between_aborted_groups") {
    TrackCursor cursor = producer.consume().cursor(Walk::sequence);
    REQUIRE_FALSE(producer.finish_at(3));
    create(0).abort(Error::cancel);
    create(2).abort(Error::cancel);
    CHECK(cursor.poll_peek(waiter).is_pending());  // 1 may still land
    create(1);
    CHECK(take_next(cursor, waiter) == 1);
    CHECK(ended(cursor, waiter));
}

// T10: a caller parked with a peek in hand hears the peeked group's abort.

TEST_CASE_FIXTURE(OneTrack, "t10_watching_a_held_peek_wakes_when_its_group_is_aborted") {
    TrackCursor cursor = producer.consume().cursor(Walk::arrival);
    GroupProducer zero = create(0);
    REQUIRE(cursor.poll_peek(waiter).is_ready());
    cursor.watch(waiter);
    zero.abort(Error::cancel);
    CHECK(task.wakes() == 1);
    CHECK(cursor.poll_peek(waiter).is_pending());
}

TEST_CASE_FIXTURE(OneTrack, "t10_watching_a_held_peek_wakes_when_a_group_lands") {
    TrackCursor cursor = producer.consume().cursor(Walk::sequence);
    create(4);
    REQUIRE(cursor.poll_peek(waiter).is_ready());
    cursor.watch(waiter);
    create(2);
    CHECK(task.wakes() == 1);
    CHECK(take_next(cursor, waiter) == 2);
}

// A change between the walk that peeked and the watch woke nobody the caller
// registered: the watch wakes it at once.

TEST_CASE_FIXTURE(OneTrack, "t10_a_group_landed_between_the_peek_and_the_watch_wakes_at_once") {
    TrackCursor cursor = producer.consume().cursor(Walk::sequence);
    create(4);
    REQUIRE(cursor.poll_peek(waiter).is_ready());
    create(2);  // no registration of this caller hears it
    CHECK(task.wakes() == 0);
    cursor.watch(waiter);
    CHECK(task.wakes() == 1);
    CHECK(take_next(cursor, waiter) == 2);
}

// T11: a held arrival peek is answered again without a walk, so a watch after it still
// compares with what that first walk saw and hears the group landed since.
TEST_CASE_FIXTURE(OneTrack,
                  "t11_a_held_arrival_peek_polled_again_is_not_walked_and_its_watch_hears_what_landed_since") {
    TrackCursor cursor = producer.consume().cursor(Walk::arrival);
    create(0);
    REQUIRE(cursor.poll_peek(waiter).value().item()->sequence == 0);
    const auto walks = cursor.walk_counter().walks;
    create(1);
    REQUIRE(cursor.poll_peek(waiter).value().item()->sequence == 0);
    CHECK(cursor.walk_counter().walks == walks);
    CHECK(task.wakes() == 0);
    cursor.watch(waiter);
    CHECK(task.wakes() == 1);
}

TEST_CASE_FIXTURE(OneTrack, "t10_a_peeked_group_aborted_before_the_watch_wakes_at_once") {
    TrackCursor cursor = producer.consume().cursor(Walk::arrival);
    GroupProducer zero = create(0);
    REQUIRE(cursor.poll_peek(waiter).is_ready());
    zero.abort(Error::cancel);
    CHECK(task.wakes() == 0);
    cursor.watch(waiter);
    CHECK(task.wakes() == 1);
    CHECK(cursor.poll_peek(waiter).is_pending());
}

TEST_CASE("t10_a_watch_with_nothing_changed_since_the_peek_wakes_nobody") {
    for (const Walk walk : {Walk::arrival, Walk::sequence}) {
        WakeCounter task;
        const Waiter waiter{task.waker()};
        TrackProducer producer;
        TrackCursor cursor = producer.consume().cursor(walk);
        // A peeked group whose producer went unfinished is closed but not aborted: still
        // offered (T6), so no reason to walk again.
        auto created = producer.create_group(3);
        REQUIRE(std::holds_alternative<GroupProducer>(created));
        created = Error::closed;  // its producer goes
        REQUIRE(cursor.poll_peek(waiter).is_ready());
        cursor.watch(waiter);
        CHECK(task.wakes() == 0);
        REQUIRE_FALSE(producer.finish());
        CHECK(task.wakes() == 1);
    }
}

TEST_CASE("t7_a_track_whose_producer_went_away_answers_dropped_after_its_groups") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    auto producer = std::make_unique<TrackProducer>();
    TrackCursor cursor = producer->consume().cursor(Walk::arrival);
    REQUIRE(std::holds_alternative<GroupProducer>(producer->create_group(3)));
    CHECK(take_next(cursor, waiter) == 3);
    REQUIRE(std::holds_alternative<GroupProducer>(producer->create_group(1)));
    CHECK(take_next(cursor, waiter) == 1);
    CHECK(cursor.poll_peek(waiter).is_pending());
    producer.reset();
    CHECK(task.wakes() == 1);  // T10: the producer going away wakes a parked cursor
    auto peek = cursor.poll_peek(waiter);
    REQUIRE(peek.is_ready());
    REQUIRE(peek.value().is_error());
    CHECK(peek.value().error() == Error::dropped);
}

TEST_CASE_FIXTURE(OneTrack, "t6_a_group_whose_producer_went_unfinished_is_offered_and_reads_dropped") {
    for (const Walk walk : {Walk::arrival, Walk::sequence}) {
        CAPTURE(walk);
        TrackProducer track;
        TrackCursor cursor = track.consume().cursor(walk);
        {
            auto created = track.create_group(2);
            REQUIRE(std::holds_alternative<GroupProducer>(created));
            CHECK(!std::get<GroupProducer>(created).write_frame("x"));
        }  // the group's only producer goes without finishing it
        auto peek = cursor.poll_peek(waiter);
        REQUIRE(peek.is_ready());
        REQUIRE(peek.value().is_item());
        CHECK(peek.value().item()->sequence == 2);
        auto taken = cursor.take();
        REQUIRE(taken);
        auto frame = taken->group.poll_read_frame(waiter);
        REQUIRE(frame.is_ready());
        REQUIRE(frame.value().is_error());
        CHECK(frame.value().error() == Error::dropped);
    }
}

// The largest u64 is no sequence: it is the end past every sequence, so `one past` any
// sequence (an end, a floor, the next append) is always representable.
TEST_CASE_FIXTURE(OneTrack, "t1_the_largest_u64_is_no_sequence_and_appending_past_the_last_is_refused") {
    constexpr std::uint64_t largest = std::numeric_limits<std::uint64_t>::max();
    auto refused = producer.create_group(largest);
    REQUIRE(std::holds_alternative<Error>(refused));
    CHECK(std::get<Error>(refused) == Error::too_large);
    create(moq::model::last_sequence - 1);
    auto appended = producer.append_group();
    REQUIRE(std::holds_alternative<GroupProducer>(appended));
    CHECK(std::get<GroupProducer>(appended).sequence() == moq::model::last_sequence);
    auto past = producer.append_group();
    REQUIRE(std::holds_alternative<Error>(past));
    CHECK(std::get<Error>(past) == Error::too_large);
    CHECK(producer.latest() == moq::model::last_sequence);
}

TEST_CASE_FIXTURE(OneTrack, "t2_finishing_after_the_last_sequence_ends_at_the_largest_u64") {
    TrackCursor by_sequence = producer.consume().cursor(Walk::sequence, moq::model::last_sequence);
    TrackCursor by_arrival = producer.consume().cursor(Walk::arrival);
    create(moq::model::last_sequence);
    static_cast<void>(producer.create_group(std::numeric_limits<std::uint64_t>::max()));  // refused (T1)
    CHECK_FALSE(producer.finish().has_value());
    // The end lies past the last sequence, never wrapped to 0 below it: lower groups
    // still land.
    auto refused = producer.create_group(3);
    CHECK(std::holds_alternative<GroupProducer>(refused));
    CHECK(take_next(by_sequence, waiter) == moq::model::last_sequence);
    CHECK(take_next(by_arrival, waiter) == moq::model::last_sequence);
    CHECK(take_next(by_arrival, waiter) == 3);
    // Taking the last sequence moves the floor to the end, not back to 0.
    CHECK(ended(by_sequence, waiter));
    CHECK(ended(by_arrival, waiter));
}

TEST_CASE_FIXTURE(OneTrack, "t8_a_floor_raised_to_the_largest_u64_offers_nothing") {
    TrackCursor cursor = producer.consume().cursor(Walk::sequence);
    create(moq::model::last_sequence);
    cursor.raise_floor(std::numeric_limits<std::uint64_t>::max());
    CHECK(cursor.poll_peek(waiter).is_pending());
    CHECK_FALSE(producer.finish().has_value());
    CHECK(ended(cursor, waiter));
}

// Rust parity (next_group_and_recv_group_use_independent_cursors): each cursor keeps its
// own position, so one walking in sequence order leaves another's arrival walk whole.
TEST_CASE_FIXTURE(OneTrack, "two_cursors_of_one_track_walk_independently") {
    const auto track = producer.consume();
    TrackCursor by_sequence = track.cursor(Walk::sequence);
    TrackCursor by_arrival = track.cursor(Walk::arrival);
    create(5);
    create(3);
    CHECK(take_next(by_sequence, waiter) == 3);
    CHECK(take_next(by_sequence, waiter) == 5);
    CHECK(by_sequence.poll_peek(waiter).is_pending());
    CHECK(take_next(by_arrival, waiter) == 5);
    CHECK(take_next(by_arrival, waiter) == 3);
    CHECK(by_arrival.poll_peek(waiter).is_pending());
}

// Rust parity (drop_finished_keeps_cached_groups): a finished track whose producer goes
// keeps its groups; cursors hand them out and end cleanly, not with `dropped`.
TEST_CASE("a_finished_track_keeps_its_groups_when_its_producer_goes") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    auto producer = std::make_unique<TrackProducer>();
    const auto track = producer->consume();
    TrackCursor by_arrival = track.cursor(Walk::arrival);
    TrackCursor by_sequence = track.cursor(Walk::sequence);
    for (std::uint64_t sequence : {1, 0}) {
        auto created = producer->create_group(sequence);
        REQUIRE(std::holds_alternative<GroupProducer>(created));
        REQUIRE_FALSE(std::get<GroupProducer>(created).finish());
    }
    REQUIRE_FALSE(producer->finish());
    producer.reset();
    CHECK(take_next(by_arrival, waiter) == 1);
    CHECK(take_next(by_arrival, waiter) == 0);
    CHECK(ended(by_arrival, waiter));
    CHECK(take_next(by_sequence, waiter) == 0);
    CHECK(take_next(by_sequence, waiter) == 1);
    CHECK(ended(by_sequence, waiter));
}

// Rust parity (fetch_cache_hit, fetch_past_final_not_found): poll_group answers a group
// that landed, parks for one that may still land (a landing wakes it), answers
// `not_found` at or past the declared end, then the track's abort error.
TEST_CASE_FIXTURE(OneTrack, "poll_group_finds_a_landed_group_parks_for_one_to_come_and_refuses_past_the_end") {
    const auto track = producer.consume();
    create(0);
    auto hit = track.poll_group(0, waiter);
    REQUIRE(hit.is_ready());
    CHECK(hit.value().item().sequence() == 0);
    CHECK(track.poll_group(2, waiter).is_pending());
    create(2);
    CHECK(task.wakes() == 1);
    CHECK(track.poll_group(2, waiter).value().item().sequence() == 2);
    REQUIRE_FALSE(producer.finish_at(4));
    CHECK(track.poll_group(4, waiter).value().error() == Error::not_found);
    CHECK(track.poll_group(moq::model::past_every_sequence, waiter).value().error() == Error::not_found);
    CHECK(track.poll_group(3, waiter).is_pending());  // below the end: it may still land
    task.reset();
    producer.abort(Error::cancel);
    CHECK(task.wakes() == 1);
    CHECK(track.poll_group(3, waiter).value().error() == Error::cancel);
    CHECK(track.poll_group(0, waiter).value().item().sequence() == 0);  // what landed stays readable
}

// Rust parity (finish_at_rejects_a_boundary_at_or_below_the_live_edge,
// finish_at_declares_a_future_boundary): the end may be one past the newest group, not
// at it; groups below a future end still land, one at it is refused, and a sequence
// walk ends there.
TEST_CASE_FIXTURE(OneTrack, "an_end_at_the_newest_group_is_refused_and_a_future_end_lets_groups_below_it_land") {
    TrackCursor cursor = producer.consume().cursor(Walk::sequence);
    create(3);
    CHECK(producer.finish_at(3) == Error::closed);
    CHECK(producer.latest() == 3);
    REQUIRE_FALSE(producer.finish_at(6));
    CHECK(take_next(cursor, waiter) == 3);
    CHECK(cursor.poll_peek(waiter).is_pending());  // 4 and 5 may still land
    create(5);
    CHECK(std::get<Error>(producer.create_group(6)) == Error::closed);
    CHECK(take_next(cursor, waiter) == 5);
    CHECK(ended(cursor, waiter));
    create(4);  // below the end, but below the floor too: never offered
    CHECK(ended(cursor, waiter));
}

// take and skip with no peek in hand hand out nothing and move nothing; a cursor moved
// while parked keeps its registration on the track (T9, T10).
TEST_CASE_FIXTURE(OneTrack, "take_without_a_peek_moves_nothing_and_a_moved_cursor_still_wakes") {
    TrackCursor cursor = producer.consume().cursor(Walk::sequence);
    CHECK_FALSE(cursor.take().has_value());
    cursor.skip();
    CHECK(cursor.poll_peek(waiter).is_pending());
    CHECK(cursor.poll_peek(waiter).is_pending());
    TrackCursor moved = std::move(cursor);
    create(0);
    CHECK(task.wakes() >= 1);
    CHECK(take_next(moved, waiter) == 0);
    CHECK(moved.poll_peek(waiter).is_pending());
}

// R14: a lookup on a track whose producer went without finishing or aborting it answers
// dropped: no group can land there any more, so the lookup must not wait.
TEST_CASE("r14_a_lookup_on_a_track_whose_producer_went_answers_dropped") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    std::optional<TrackProducer> producer(std::in_place);
    const moq::model::TrackConsumer consumer = producer->consume();
    producer.reset();
    auto answer = consumer.poll_group(3, waiter);
    REQUIRE(answer.is_ready());
    REQUIRE(answer.value().is_error());
    CHECK(answer.value().error() == Error::dropped);
}
