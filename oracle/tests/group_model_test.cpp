// The group model's judgements of one reader, on histories told by hand.
#include <doctest/doctest.h>

#include "oracle/group_model.hpp"

using moq::model::Error;
using moq::oracle::GroupModel;
using moq::oracle::GroupReaderModel;
using moq::oracle::GroupRouteModel;

// G4, G11: a follower whose first copy lost an arriving frame (its last producer went)
// moves to the replica the route serves, which the driver has not dropped yet: the frame
// it hands out there is one the group started.
TEST_CASE("g4_a_follower_opens_a_frame_its_replica_still_holds") {
    GroupRouteModel route{GroupModel{}};
    GroupReaderModel reader{route.copy(0), 0, std::nullopt};
    reader.with_recover(&route);
    REQUIRE_FALSE(route.copy(0).start_frame(1));
    REQUIRE_FALSE(route.copy(0).write_chunk("A"));
    GroupModel& replica = route.serve();
    route.copy(0).drop();
    CHECK(route.copy(0).aborted() == Error::dropped);
    CHECK(replica.next_index() == 1);
    CHECK_FALSE(reader.frame_opened(0));
    CHECK_FALSE(reader.chunk("A"));
}

// G4: a reader that does not follow the route reads its own copy only.
TEST_CASE("g4_a_reader_on_one_copy_opens_no_frame_that_copy_lost") {
    GroupRouteModel route{GroupModel{}};
    GroupReaderModel reader{route.copy(0), 0, std::nullopt};
    REQUIRE_FALSE(route.copy(0).start_frame(1));
    static_cast<void>(route.serve());
    route.copy(0).drop();
    const auto violation = reader.frame_opened(0);
    REQUIRE(violation);
    CHECK(violation->rfind("G4: ", 0) == 0);
}

// G6: the frame count is fixed at finish; an abort after it releases the frames, not the
// count, for a reader that read nothing.
TEST_CASE("g6_the_frame_count_stands_after_a_later_abort") {
    GroupModel group;
    GroupReaderModel reader{group, 0, std::nullopt};
    REQUIRE_FALSE(group.write_frame("a"));
    REQUIRE_FALSE(group.write_frame("b"));
    REQUIRE_FALSE(group.finish());
    group.abort(Error::cancel);
    CHECK_FALSE(reader.finished_count(2));
}

// G6: so an abort error is no answer of poll_finished once the group finished.
TEST_CASE("g6_poll_finished_answers_no_abort_after_the_finish") {
    GroupModel group;
    GroupReaderModel reader{group, 0, std::nullopt};
    REQUIRE_FALSE(group.write_frame("a"));
    REQUIRE_FALSE(group.finish());
    group.abort(Error::cancel);
    const auto violation = reader.finished_error(Error::cancel);
    REQUIRE(violation);
    CHECK(violation->rfind("G6: ", 0) == 0);
}
