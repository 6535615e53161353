// The resume model's judgements, on histories told by hand as the resume suite tells
// them: each driver operation, then `operation_done`; each poll begun, then its answer.
#include <doctest/doctest.h>

#include <chrono>
#include <limits>
#include <string>
#include <vector>

#include "oracle/resume_model.hpp"

using moq::kio::Instant;
using moq::model::Error;
using moq::model::Walk;
using moq::oracle::ResumeModel;
using namespace std::chrono_literals;

namespace {

constexpr int A = 0;
constexpr int B = 1;
constexpr int C = 2;

// A history at one instant: time plays no part in these judgements.
struct History {
    ResumeModel model;
    Instant now{};

    explicit History(std::uint64_t delivered_window = 1024) : model(Walk::arrival, 2s, delivered_window) {}

    void land(int copy, std::uint64_t sequence) {
        REQUIRE(model.land(copy, sequence, now));
        model.operation_done();
    }
    void serve(int copy) {
        model.serve(copy, now);
        model.operation_done();
    }
    void finish(int copy) {
        REQUIRE(model.finish(copy, now));
        model.operation_done();
    }
    // A poll that hands out `sequence`, read as its copy's one frame.
    std::optional<std::string> take(int copy, std::uint64_t sequence) {
        model.poll_begun();
        return model.answered_group(sequence, {ResumeModel::payload(copy, sequence)}, now);
    }
};

}  // namespace

// R8: the walk reads a replaced copy's end when it scans it and what it may still land
// when it judges retention, later. Scanned before the copy finished and judged after a
// group below the range landed (so 1 is the first missing), the copy is retained, and
// the group it lands next is handed out from it. At no single point of the walk is it
// both unfinished and missing a group.
TEST_CASE("r8_retention_reads_a_copys_end_before_its_missing_groups") {
    History history;
    history.serve(B);
    history.land(B, 2);
    REQUIRE_FALSE(history.take(B, 2));
    history.serve(A);
    history.model.range_set(1, std::nullopt);
    // One walk, Pending: it follows the route to A, scans B, then B finishes and lands 0.
    history.model.poll_begun();
    history.finish(B);
    history.land(B, 0);
    history.model.answered_pending(history.now);
    history.land(B, 1);
    CHECK_FALSE(history.take(B, 1));
}

// R8, R13: a walk scans the serving copy first and each replaced copy after it, each at a
// point of its own. Here C (serving) was scanned before it landed 3 and A (replaced)
// after it finished, so neither holds the end back and the route's error ends the read.
TEST_CASE("r8_each_replaced_copy_is_scanned_at_a_point_of_its_own") {
    History history;
    history.serve(A);
    history.land(A, 0);
    REQUIRE_FALSE(history.take(A, 0));
    history.land(A, 2);
    history.model.poll_begun();
    history.model.end(Error::unroutable, history.now);
    history.model.operation_done();
    history.serve(C);
    REQUIRE_FALSE(history.model.answered_group(2, {ResumeModel::payload(A, 2)}, history.now));
    history.model.poll_begun();
    history.land(C, 3);
    history.finish(A);
    CHECK_FALSE(history.model.answered_end(Error::unroutable, history.now));
}

// R12: a group held past the range's end from one copy of a track comes out of the held
// groups once the end is raised; that says nothing of the `until` of an older replaced
// copy of the same track, so an end that copy's lower `until` allows stays allowed.
TEST_CASE("r12_a_held_group_leaves_a_replaced_copys_until_open") {
    History history{2};
    history.serve(B);  // B as adopted first (B1)
    history.land(B, 2);
    REQUIRE_FALSE(history.take(B, 2));
    history.land(B, 0);
    REQUIRE_FALSE(history.take(B, 0));
    // A walk that may read the route before or after B lands 4: B1's until is 2 or 4.
    history.model.poll_begun();
    history.serve(A);
    history.land(B, 4);
    history.model.answered_pending(history.now);
    // B again (B3), with the range ending at 3: its group 4 is held past the end.
    history.model.range_set(1, 3);
    history.model.poll_begun();
    history.serve(B);
    history.model.answered_pending(history.now);
    // A again: B3 is let go (nothing below the end is missing there), B1 kept while 1 may land.
    history.model.poll_begun();
    history.serve(A);
    history.model.answered_pending(history.now);
    history.model.end(Error::unroutable, history.now);
    history.model.operation_done();
    history.model.range_set(2, std::nullopt);
    REQUIRE_FALSE(history.take(B, 4));  // the held group
    history.model.poll_begun();
    CHECK_FALSE(history.model.answered_end(Error::unroutable, history.now));
}

// R14: a handed-out group landed open stalls; once the route serves a copy that holds
// its frame, a read still parked has missed the route's wake.
TEST_CASE("r14_a_stalled_read_parked_while_the_serving_copy_holds_its_frame_missed_a_wake") {
    History history;
    history.serve(A);
    REQUIRE(history.model.open(A, 0, history.now));
    history.model.operation_done();
    history.model.poll_begun();
    REQUIRE_FALSE(history.model.answered_group(0, {}, history.now));
    history.model.group_read_begins(0);
    CHECK_FALSE(history.model.quiescent(history.now));  // waiting for A's frame
    history.land(B, 0);
    CHECK_FALSE(history.model.quiescent(history.now));  // B is not served
    history.serve(B);
    const auto missed = history.model.quiescent(history.now);
    REQUIRE(missed);
    CHECK(missed->rfind("R14: missed wake", 0) == 0);
    CHECK_FALSE(history.model.group_frame(0, ResumeModel::payload(B, 0)));
    CHECK_FALSE(history.model.group_ended(0, std::nullopt));
}

// R12: with a window of 1, holding 1 and 2 past the range's end may have dropped 2 (the
// model cannot see whether it did), and B's cursor went past it. Once 1 is handed out,
// B's clean end is legal under that reading of the bound, though not under the other.
TEST_CASE("r12_an_end_is_legal_where_the_held_bound_may_have_dropped_a_group") {
    History history{1};
    history.land(B, 1);
    history.serve(B);
    history.land(B, 2);
    history.finish(B);
    history.model.range_set(0, 1);
    history.model.poll_begun();
    history.model.answered_pending(history.now);
    history.model.range_set(0, std::nullopt);
    REQUIRE_FALSE(history.take(B, 1));
    history.model.poll_begun();
    CHECK_FALSE(history.model.answered_end(std::nullopt, history.now));
}

// R12, R7: the same bound seen from a parked reader: A's group 2 may have been dropped
// with 1 held, so a reader parked after handing out 1 has missed no wake (a missed wake is
// one under both readings of the bound).
TEST_CASE("r12_a_group_the_held_bound_may_have_dropped_is_owed_under_one_reading_only") {
    History history{1};
    history.model.range_set(0, 1);
    REQUIRE(history.model.open(A, 1, history.now));
    history.model.operation_done();
    history.land(A, 2);
    history.serve(A);
    history.model.poll_begun();
    history.model.answered_pending(history.now);
    history.model.range_set(0, std::nullopt);
    history.model.poll_begun();
    REQUIRE_FALSE(history.model.answered_group(1, {}, history.now));  // landed open: no frame yet
    history.model.poll_begun();
    history.model.answered_pending(history.now);
    CHECK_FALSE(history.model.quiescent(history.now));
}

// R10: a floor skipped to the largest u64 uses the range up: one past it saturates there,
// never wraps back to 0, so a clean end is legal at once.
TEST_CASE("r10_a_range_below_a_floor_at_the_largest_u64_is_used_up") {
    ResumeModel model(Walk::sequence, 2s);
    model.skipped(std::numeric_limits<std::uint64_t>::max());
    model.range_set(0, 10);
    model.poll_begun();
    CHECK_FALSE(model.answered_end(std::nullopt, Instant{}));
}

// The bound on legal states. A route that changes four times in each of many walks leaves
// the model unsure which generation each walk adopted, and every replaced copy is retained
// (group 1 missing, within its grace): the legal states outgrow the bound. An end no rule
// allows (the serving copy still has a group) is then not judged, where the same history
// with fewer walks is.
namespace {

std::optional<std::string> end_after_flapping_walks(int walks, bool& bounded) {
    History history;
    for (const int copy : {A, B, C}) {
        history.land(copy, 0);
        history.land(copy, 2);
    }
    history.serve(A);
    for (int walk = 0; walk < walks; ++walk) {
        history.model.poll_begun();
        for (const int copy : {B, C, A, B}) history.serve(copy);
        history.model.answered_pending(history.now);
    }
    bounded = history.model.bounded();
    history.model.poll_begun();
    return history.model.answered_end(std::nullopt, history.now);
}

}  // namespace

TEST_CASE("a_model_past_its_bound_on_legal_states_stops_judging_the_readers_answers") {
    bool bounded = true;
    const auto judged = end_after_flapping_walks(2, bounded);
    CHECK_FALSE(bounded);
    REQUIRE(judged);
    CHECK(judged->rfind("R10:", 0) == 0);
    const auto unjudged = end_after_flapping_walks(12, bounded);
    CHECK(bounded);
    CHECK_FALSE(unjudged);
}

// ---- a range change between a peek and its take ----

// R5: a peek the new range still covers is what the poll hands out: another group, or no
// group, is a violation; the peek itself is not.
TEST_CASE("r5_a_poll_whose_range_change_kept_its_peek_hands_out_that_peek") {
    for (const int answer : {0, 1, 2}) {
        CAPTURE(answer);
        History history;
        history.serve(A);
        history.land(A, 0);
        history.land(A, 1);
        history.model.poll_begun();
        history.model.peeked(0);
        history.model.range_set_in_poll(0, 5, history.now);
        if (answer == 0) CHECK_FALSE(history.model.answered_group(0, {ResumeModel::payload(A, 0)}, history.now));
        if (answer == 1) {
            const auto verdict = history.model.answered_group(1, {ResumeModel::payload(A, 1)}, history.now);
            REQUIRE(verdict);
            CHECK(verdict->starts_with("R5: the poll answered group 1 after a range change kept its peek of group 0"));
        }
        if (answer == 2) {
            const auto verdict = history.model.answered_pending(history.now);
            REQUIRE(verdict);
            CHECK(verdict->starts_with("R5: the poll answered no group"));
        }
    }
}

// R12: the walk that peeked under the old end held the groups past it; with a window of
// one, it dropped 2 and kept 1. A peek the new range drops is one that never was, and the
// reader parked once it handed out 1 has missed no wake under that reading of the bound.
// Told before the poll instead, the same range makes 2 owed.
TEST_CASE("r12_groups_held_under_the_end_a_peek_met_stay_held_after_the_range_moves") {
    for (const bool in_poll : {true, false}) {
        CAPTURE(in_poll);
        History history{1};
        history.serve(A);
        history.land(A, 0);
        history.land(A, 1);
        history.land(A, 2);
        history.model.range_set(0, 1);
        history.model.poll_begun();
        if (in_poll) {
            history.model.peeked(0);
            history.model.range_set_in_poll(0, std::nullopt, history.now);
        } else {
            history.model.range_set(0, std::nullopt);
        }
        REQUIRE_FALSE(history.model.answered_group(0, {ResumeModel::payload(A, 0)}, history.now));
        REQUIRE_FALSE(history.model.group_ended(0, std::nullopt));
        REQUIRE_FALSE(history.take(A, 1));
        REQUIRE_FALSE(history.model.group_ended(1, std::nullopt));
        history.model.poll_begun();
        CHECK_FALSE(history.model.answered_pending(history.now));
        const auto parked = history.model.quiescent(history.now);
        CHECK_MESSAGE(parked.has_value() != in_poll, parked.value_or("no verdict"));
    }
}

// R3: a peek the range drops ends its walk; the poll walks again, and may adopt another
// generation after the one the peek's walk adopted. A's group 1 is then A's as a replaced
// copy, within its until; told as one window, the poll could only have adopted one.
TEST_CASE("r3_a_poll_whose_peek_was_dropped_walks_again_under_a_later_generation") {
    for (const bool dropped : {true, false}) {
        CAPTURE(dropped);
        History history;
        history.model.poll_begun();
        history.serve(A);
        history.land(A, 0);
        history.land(A, 1);
        if (dropped) {
            history.model.peeked(0);
            history.model.range_set_in_poll(1, std::nullopt, history.now);  // 0 is below the new start
        }
        history.serve(B);
        history.land(B, 2);
        if (!dropped) history.model.range_set(1, std::nullopt);
        REQUIRE_FALSE(history.model.answered_group(2, {ResumeModel::payload(B, 2)}, history.now));
        CHECK(history.take(A, 1).has_value() != dropped);
    }
}
