// The runtime model's E6: which messages a poll must happen after (those whose wake
// returned before it began), and that a first poll has no previous poll to follow.
#include <doctest/doctest.h>

#include "oracle/runtime_model.hpp"

using moq::oracle::RuntimeModel;

TEST_CASE("e6_judges_only_the_messages_whose_wake_returned_before_the_poll_began") {
    RuntimeModel model(1);
    model.spawned(0);
    model.posted(0);  // message 0: no wake yet
    model.posted(0);  // message 1: its wake returns before the poll
    model.delivered(0, 1);
    REQUIRE_FALSE(model.poll_began(0));
    model.delivered(0, 0);  // message 0's wake returns during the poll
    CHECK_FALSE(model.after_post(0, 0, false));
    CHECK_FALSE(model.after_post(0, 1, true));
    const auto found = model.after_post(0, 1, false);
    REQUIRE(found);
    CHECK(found->starts_with("E6: task 0's poll 1 read message 1"));
    REQUIRE_FALSE(model.read(0, 2));
    model.answered(0, false);
    // The next poll owes message 0 too.
    REQUIRE_FALSE(model.poll_began(0));
    CHECK(model.after_post(0, 0, false));
}

TEST_CASE("e6_orders_each_poll_after_the_previous_one_from_the_second_on") {
    RuntimeModel model(1);
    model.spawned(0);
    REQUIRE_FALSE(model.poll_began(0));
    CHECK_FALSE(model.after_previous_poll(0, false));
    model.answered(0, false);
    REQUIRE_FALSE(model.poll_began(0));
    CHECK_FALSE(model.after_previous_poll(0, true));
    const auto found = model.after_previous_poll(0, false);
    REQUIRE(found);
    CHECK(*found ==
          "E6: task 0's poll 2 does not happen after its poll 1 ended: no release and acquire orders the two, so "
          "it may not see what that one wrote");
}

TEST_CASE("e6_orders_a_join_that_answers_finished_after_the_ready_poll_and_nothing_before_it") {
    RuntimeModel model(1);
    model.spawned(0);
    // Not ended yet (or dropped by shutdown unfinished): nothing to be ordered after.
    CHECK_FALSE(model.after_end(0, false));
    REQUIRE_FALSE(model.poll_began(0));
    model.answered(0, true);
    CHECK_FALSE(model.after_end(0, true));
    const auto found = model.after_end(0, false);
    REQUIRE(found);
    CHECK(*found == "E6: task 0's join handle answered finished, but does not happen after its poll 1 answered Ready");
}
