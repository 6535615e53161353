#include <doctest/doctest.h>

#include <string>
#include <utility>

#include "kio/waiter.hpp"
#include "model/group.hpp"
#include "support/counting_waker.hpp"
#include "support/one_group.hpp"

using moq::kio::Waiter;
using moq::model::Bytes;
using moq::model::Codec;
using moq::model::Error;
using moq::model::GroupConsumer;
using moq::model::GroupLimits;
using moq::model::GroupProducer;
using moq::test::ended;
using moq::test::frame_of;
using moq::test::OneGroup;
using moq::test::WakeCounter;

TEST_CASE("frames_are_read_in_order_then_the_group_ends") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    GroupProducer producer{7};
    GroupConsumer consumer = producer.consume();
    producer.write_frame("a");
    producer.write_frame("b");
    producer.finish();
    CHECK(frame_of(consumer.poll_read_frame(waiter)) == "a");
    CHECK(frame_of(consumer.poll_read_frame(waiter)) == "b");
    auto end = consumer.poll_read_frame(waiter);
    REQUIRE(end.is_ready());
    CHECK(end.value().is_end());
    CHECK(consumer.sequence() == 7);
}

TEST_CASE_FIXTURE(OneGroup, "pending_then_ready") {
    CHECK(consumer.poll_read_frame(waiter).is_pending());
    producer.write_frame("x");
    CHECK(task.wakes() == 1);
    CHECK(frame_of(consumer.poll_read_frame(waiter)) == "x");
}

TEST_CASE_FIXTURE(OneGroup, "finishing_wakes_a_parked_read_with_the_end") {
    CHECK(consumer.poll_read_frame(waiter).is_pending());
    producer.finish();
    CHECK(task.wakes() == 1);
    CHECK(consumer.poll_read_frame(waiter).value().is_end());
}

TEST_CASE_FIXTURE(OneGroup, "abort_propagates_to_a_parked_read") {
    CHECK(consumer.poll_read_frame(waiter).is_pending());
    producer.abort(Error::cancel);
    CHECK(task.wakes() == 1);
    auto answer = consumer.poll_read_frame(waiter);
    REQUIRE(answer.value().is_error());
    CHECK(answer.value().error() == Error::cancel);
}

TEST_CASE("abort_after_finish_keeps_the_clean_end_for_a_drained_reader") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    GroupProducer producer{0};
    GroupConsumer drained = producer.consume();
    GroupConsumer behind = producer.consume();
    producer.write_frame("a");
    producer.finish();
    CHECK(frame_of(drained.poll_read_frame(waiter)) == "a");
    producer.abort(Error::old);
    CHECK(drained.poll_read_frame(waiter).value().is_end());
    CHECK(behind.poll_read_frame(waiter).value().error() == Error::old);
    CHECK(drained.poll_finished(waiter).value().item() == 1);
}

TEST_CASE("g7_the_last_producer_going_releases_the_cache") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    auto producer = std::make_unique<GroupProducer>(0);
    GroupConsumer whole = producer->consume();
    GroupConsumer chunked = producer->consume();
    GroupConsumer counting = producer->consume();
    REQUIRE_FALSE(producer->write_frame("cached"));
    REQUIRE_FALSE(producer->start_frame(4));
    REQUIRE_FALSE(producer->write_chunk("ab"));
    auto frame = chunked.poll_next_frame(waiter);
    REQUIRE(frame.is_ready());
    REQUIRE(frame.value().is_item());
    CHECK(frame.value().item().poll_read_chunk(waiter).value().item() == "cached");
    CHECK(frame.value().item().poll_read_chunk(waiter).value().is_end());
    auto arriving = chunked.poll_next_frame(waiter);
    REQUIRE(arriving.value().is_item());
    CHECK(arriving.value().item().poll_read_chunk(waiter).value().item() == "ab");
    CHECK(arriving.value().item().poll_read_chunk(waiter).is_pending());
    CHECK(counting.poll_finished(waiter).is_pending());
    task.reset();
    producer.reset();
    CHECK(task.wakes() >= 1);
    // The frame written before the producer went is gone with the cache.
    CHECK(whole.poll_read_frame(waiter).value().error() == Error::dropped);
    CHECK(arriving.value().item().poll_read_chunk(waiter).value().error() == Error::dropped);
    CHECK(counting.poll_finished(waiter).value().error() == Error::dropped);
}

TEST_CASE("g7_the_last_producer_going_wakes_every_parked_reader") {
    WakeCounter first_task;
    WakeCounter second_task;
    const Waiter first{first_task.waker()};
    const Waiter second{second_task.waker()};
    auto producer = std::make_unique<GroupProducer>(0);
    GroupConsumer reading = producer->consume();
    GroupConsumer counting = producer->consume();
    CHECK(reading.poll_read_frame(first).is_pending());
    CHECK(counting.poll_finished(second).is_pending());
    producer.reset();
    CHECK(first_task.wakes() == 1);
    CHECK(second_task.wakes() == 1);
    CHECK(reading.poll_read_frame(first).value().error() == Error::dropped);
}

TEST_CASE("g7_a_copy_of_the_producer_keeps_the_group_open") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    auto producer = std::make_unique<GroupProducer>(0);
    GroupProducer copy = *producer;
    GroupConsumer consumer = producer->consume();
    REQUIRE_FALSE(producer->write_frame("a"));
    producer.reset();
    CHECK(frame_of(consumer.poll_read_frame(waiter)) == "a");
    CHECK(consumer.poll_read_frame(waiter).is_pending());
    REQUIRE_FALSE(copy.write_frame("b"));
    CHECK(frame_of(consumer.poll_read_frame(waiter)) == "b");
}

TEST_CASE("g7_a_finished_group_keeps_its_frames_when_its_producer_goes") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    auto producer = std::make_unique<GroupProducer>(0);
    GroupConsumer consumer = producer->consume();
    producer->write_frame("kept");
    producer->finish();
    producer.reset();
    CHECK(frame_of(consumer.poll_read_frame(waiter)) == "kept");
    CHECK(consumer.poll_read_frame(waiter).value().is_end());
}

TEST_CASE("g7_the_producer_going_after_an_abort_keeps_the_abort") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    auto producer = std::make_unique<GroupProducer>(0);
    GroupConsumer consumer = producer->consume();
    producer->write_frame("a");
    producer->abort(Error::cancel);
    producer.reset();
    CHECK(consumer.poll_read_frame(waiter).value().error() == Error::cancel);
}

TEST_CASE("g7_a_producer_moved_onto_another_releases_the_group_it_held") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    GroupProducer producer{0};
    GroupConsumer consumer = producer.consume();
    REQUIRE_FALSE(producer.write_frame("a"));
    producer = GroupProducer{1};
    CHECK(consumer.poll_read_frame(waiter).value().error() == Error::dropped);
    CHECK(producer.sequence() == 1);
}

TEST_CASE_FIXTURE(OneGroup, "a_chunked_frame_reads_whole_once_it_ends") {
    REQUIRE_FALSE(producer.start_frame(10));
    REQUIRE_FALSE(producer.write_chunk("hello"));
    CHECK(consumer.poll_read_frame(waiter).is_pending());  // half a frame is no frame
    REQUIRE_FALSE(producer.write_chunk("world"));
    CHECK(consumer.poll_read_frame(waiter).is_pending());
    task.reset();
    REQUIRE_FALSE(producer.end_frame());
    CHECK(task.wakes() == 1);
    CHECK(frame_of(consumer.poll_read_frame(waiter)) == "helloworld");
}

TEST_CASE("a_chunk_of_the_wrong_size_is_refused") {
    GroupProducer producer{0};
    REQUIRE_FALSE(producer.start_frame(3));
    CHECK(producer.write_chunk("toolong") == Error::wrong_size);
    CHECK(producer.write_frame("other") == Error::frame_open);
    REQUIRE_FALSE(producer.write_chunk("ab"));
    CHECK(producer.end_frame() == Error::wrong_size);
    CHECK(producer.finish() == Error::frame_open);
}

TEST_CASE_FIXTURE(OneGroup, "next_frame_streams_a_frame_still_arriving") {
    CHECK(consumer.poll_next_frame(waiter).is_pending());
    REQUIRE_FALSE(producer.start_frame(4));
    CHECK(task.wakes() == 1);  // a frame that starts wakes a parked next_frame
    auto handed = consumer.poll_next_frame(waiter);
    REQUIRE(handed.value().is_item());
    auto& reader = handed.value().item();
    CHECK(reader.poll_read_chunk(waiter).is_pending());
    REQUIRE_FALSE(producer.write_chunk("ab"));
    CHECK(task.wakes() == 2);  // each chunk wakes a parked chunk read
    CHECK(reader.poll_read_chunk(waiter).value().item() == "ab");
    CHECK(reader.poll_read_chunk(waiter).is_pending());
    REQUIRE_FALSE(producer.write_chunk("cd"));
    REQUIRE_FALSE(producer.end_frame());
    CHECK(reader.poll_read_chunk(waiter).value().item() == "cd");
    CHECK(reader.poll_read_chunk(waiter).value().is_end());
}

// The limits are inclusive: a group holds exactly max_bytes (a chunked frame counts its
// declared size when it starts) and exactly max_frames; one byte or frame more is refused
// and aborts the group (G3).
TEST_CASE("a_group_over_its_byte_limit_aborts") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    GroupProducer producer{0, GroupLimits{.max_bytes = 8, .max_frames = 100}};
    GroupConsumer consumer = producer.consume();
    REQUIRE_FALSE(producer.write_frame("1234"));
    REQUIRE_FALSE(producer.start_frame(4));
    REQUIRE_FALSE(producer.write_chunk("5678"));
    REQUIRE_FALSE(producer.end_frame());
    REQUIRE_FALSE(producer.write_frame(""));  // an empty frame adds no byte
    CHECK(frame_of(consumer.poll_read_frame(waiter)) == "1234");
    CHECK(frame_of(consumer.poll_read_frame(waiter)) == "5678");
    CHECK(frame_of(consumer.poll_read_frame(waiter)).empty());
    CHECK(producer.start_frame(1) == Error::too_large);
    CHECK(producer.write_frame("x") == Error::closed);
    CHECK(consumer.poll_read_frame(waiter).value().error() == Error::too_large);
}

TEST_CASE("a_group_over_its_frame_limit_aborts") {
    GroupProducer producer{0, GroupLimits{.max_bytes = 1 << 20, .max_frames = 3}};
    for (int i = 0; i < 2; ++i) REQUIRE_FALSE(producer.write_frame("f"));
    REQUIRE_FALSE(producer.start_frame(1));  // the third frame counts from its start
    CHECK(producer.write_frame("f") == Error::frame_open);
    REQUIRE_FALSE(producer.write_chunk("f"));
    REQUIRE_FALSE(producer.end_frame());
    CHECK(producer.write_frame("f") == Error::too_large);
    CHECK(producer.start_frame(1) == Error::closed);
}

TEST_CASE("a_clone_reads_on_its_own_from_the_same_position") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    GroupProducer producer{0};
    GroupConsumer original = producer.consume();
    producer.write_frame("a");
    producer.write_frame("b");
    CHECK(frame_of(original.poll_read_frame(waiter)) == "a");
    GroupConsumer clone = original;
    CHECK(frame_of(clone.poll_read_frame(waiter)) == "b");
    CHECK(frame_of(original.poll_read_frame(waiter)) == "b");
}

TEST_CASE_FIXTURE(OneGroup, "read_frames_returns_a_short_batch_and_parks_only_when_empty") {
    CHECK(consumer.poll_read_frames(waiter, 4).is_pending());
    producer.write_frame("a");
    producer.write_frame("b");
    auto batch = consumer.poll_read_frames(waiter, 4);
    REQUIRE(batch.value().is_item());
    CHECK(batch.value().item().size() == 2);
    producer.write_frame("c");
    producer.finish();
    batch = consumer.poll_read_frames(waiter, 4);
    CHECK(batch.value().item().size() == 1);
    CHECK(consumer.poll_read_frames(waiter, 4).value().is_end());
}

TEST_CASE("read_object_hands_out_the_index_and_the_encoded_payload") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    GroupProducer producer{0};
    GroupConsumer plain = producer.consume();
    GroupConsumer packed = producer.consume();
    packed.compressed();
    producer.write_frame("aaaab");
    producer.write_frame("cc");
    auto first = plain.poll_read_object(waiter);
    CHECK(first.value().item().index == 0);
    CHECK(first.value().item().payload == "aaaab");
    auto encoded = packed.poll_read_object(waiter);
    CHECK(encoded.value().item().payload != "aaaab");
    CHECK(moq::model::decompress(Codec::run_length, encoded.value().item().payload) == "aaaab");
    CHECK(packed.poll_read_object(waiter).value().item().index == 1);
    // Whole-frame reads are encoded too.
    GroupConsumer reader = producer.consume();
    reader.compressed();
    CHECK(moq::model::decompress(Codec::run_length, frame_of(reader.poll_read_frame(waiter))) == "aaaab");
}

// An encoding reader's whole-frame reads: a read of an empty group still parks (only a
// frame is encoded, never a pending answer), and a batch encodes every frame it hands out.
TEST_CASE_FIXTURE(OneGroup, "an_encoding_reader_parks_on_an_empty_group_and_encodes_each_frame_of_a_batch") {
    GroupConsumer batched = producer.consume();
    consumer.compressed();
    batched.compressed();
    CHECK(consumer.poll_read_frame(waiter).is_pending());
    CHECK(batched.poll_read_frames(waiter, 4).is_pending());
    producer.write_frame("aaaab");
    producer.write_frame("cc");
    CHECK(moq::model::decompress(Codec::run_length, frame_of(consumer.poll_read_frame(waiter))) == "aaaab");
    auto batch = batched.poll_read_frames(waiter, 4);
    REQUIRE(batch.value().is_item());
    REQUIRE(batch.value().item().size() == 2);
    CHECK(*batch.value().item()[0] != "aaaab");
    CHECK(moq::model::decompress(Codec::run_length, *batch.value().item()[0]) == "aaaab");
    CHECK(moq::model::decompress(Codec::run_length, *batch.value().item()[1]) == "cc");
}

TEST_CASE("the_run_length_codec_round_trips") {
    // A run of zero bytes at the end must not take in the terminator past the string.
    for (const std::string& plain :
         {std::string(), std::string("a"), std::string(600, 'z') + "q", std::string("abcabc"), std::string(3, '\0')}) {
        const std::string packed = moq::model::compress(Codec::run_length, plain);
        CHECK(moq::model::decompress(Codec::run_length, packed) == plain);
    }
    // A run is at most 255 bytes, the most its length byte holds: 600 bytes take three runs.
    CHECK(moq::model::compress(Codec::run_length, std::string(600, 'z')).size() == 6);
    CHECK(moq::model::compress(Codec::run_length, std::string(255, 'z')).size() == 2);
    CHECK_FALSE(moq::model::decompress(Codec::run_length, std::string("\0a", 2)).has_value());
    CHECK_FALSE(moq::model::decompress(Codec::run_length, "abc").has_value());
}

TEST_CASE_FIXTURE(OneGroup, "finished_reports_the_frame_count_or_the_error") {
    CHECK(consumer.poll_finished(waiter).is_pending());
    producer.write_frame("a");
    CHECK(task.wakes() == 1);
    CHECK(consumer.poll_finished(waiter).is_pending());
    producer.write_frame("b");
    producer.finish();
    CHECK(consumer.poll_finished(waiter).value().item() == 2);
    CHECK(producer.frame_count() == 2);
}

// Rust parity (finished_survives_a_later_abort): the count is fixed at finish, so an
// abort that releases the frames later does not turn it into an error, for a reader that
// read nothing as for one that drained the group (G6). The reads of frames still get the
// abort where frames were lost (G5).
TEST_CASE_FIXTURE(OneGroup, "g6_the_frame_count_survives_a_later_abort") {
    GroupConsumer drained = producer.consume();
    REQUIRE_FALSE(producer.write_frame("a"));
    REQUIRE_FALSE(producer.write_frame("b"));
    REQUIRE_FALSE(producer.finish());
    CHECK(frame_of(drained.poll_read_frame(waiter)) == "a");
    CHECK(frame_of(drained.poll_read_frame(waiter)) == "b");
    producer.abort(Error::old);
    CHECK(consumer.poll_finished(waiter).value().item() == 2);
    CHECK(drained.poll_finished(waiter).value().item() == 2);
    CHECK(consumer.poll_read_frame(waiter).value().error() == Error::old);
    CHECK(ended(drained.poll_read_frame(waiter)));
}

// Rust parity (interleave_read_and_next_frame): the whole-frame and the chunked reads
// move one cursor, so each frame is handed out once, in order, whichever read takes it.
TEST_CASE_FIXTURE(OneGroup, "read_frame_and_next_frame_move_one_cursor") {
    REQUIRE_FALSE(producer.write_frame("a"));
    REQUIRE_FALSE(producer.write_frame("b"));
    REQUIRE_FALSE(producer.write_frame("c"));
    REQUIRE_FALSE(producer.finish());
    CHECK(frame_of(consumer.poll_read_frame(waiter)) == "a");
    auto next = consumer.poll_next_frame(waiter);
    REQUIRE(next.is_ready());
    REQUIRE(next.value().is_item());
    auto& frame = next.value().item();
    CHECK(frame.index() == 1);
    CHECK(frame.poll_read_chunk(waiter).value().item() == "b");
    CHECK(frame.poll_read_chunk(waiter).value().is_end());
    CHECK(frame_of(consumer.poll_read_frame(waiter)) == "c");
    CHECK(ended(consumer.poll_read_frame(waiter)));
    CHECK(consumer.poll_next_frame(waiter).value().is_end());
}

// Rust parity (read_frame_past_cleared_frames_does_not_panic): a cursor moved past the
// frames an abort released gets the abort, unless it is past a finished group's end.
TEST_CASE("a_cursor_past_the_frames_of_an_aborted_group_gets_the_abort") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    GroupProducer unfinished{0};
    GroupConsumer far = unfinished.consume();
    for (const char* frame : {"a", "b", "c"}) REQUIRE_FALSE(unfinished.write_frame(frame));
    unfinished.abort(Error::cancel);
    far.skip_to(5);
    CHECK(far.poll_read_frame(waiter).value().error() == Error::cancel);
    CHECK(far.poll_next_frame(waiter).value().error() == Error::cancel);
    CHECK(far.poll_finished(waiter).value().error() == Error::cancel);

    GroupProducer finished{1};
    GroupConsumer drained = finished.consume();
    GroupConsumer short_of_it = finished.consume();
    for (const char* frame : {"a", "b", "c"}) REQUIRE_FALSE(finished.write_frame(frame));
    REQUIRE_FALSE(finished.finish());
    finished.abort(Error::cancel);
    drained.skip_to(3);  // exactly at the frame count: nothing was lost
    CHECK(ended(drained.poll_read_frame(waiter)));
    CHECK(drained.poll_finished(waiter).value().item() == 3);
    short_of_it.skip_to(2);  // one frame short: it lost frame 2
    CHECK(short_of_it.poll_read_frame(waiter).value().error() == Error::cancel);
    CHECK(short_of_it.poll_finished(waiter).value().item() == 3);  // the count stands (G6)
}

// An empty frame is a frame, not an end: whole, and as a chunked frame of size 0.
TEST_CASE_FIXTURE(OneGroup, "an_empty_frame_is_a_frame_and_not_the_end") {
    REQUIRE_FALSE(producer.write_frame(""));
    REQUIRE_FALSE(producer.start_frame(0));
    CHECK(frame_of(consumer.poll_read_frame(waiter)).empty());
    auto next = consumer.poll_next_frame(waiter);
    REQUIRE(next.value().is_item());
    CHECK(next.value().item().poll_read_chunk(waiter).value().is_end());  // all 0 bytes read
    REQUIRE_FALSE(producer.end_frame());
    REQUIRE_FALSE(producer.finish());
    CHECK(ended(consumer.poll_read_frame(waiter)));
    CHECK(consumer.poll_finished(waiter).value().item() == 2);
}

// Reading past the end: every read of a group that ended answers that end again, and
// after an error the same error, however often it is polled (G5, G6).
TEST_CASE_FIXTURE(OneGroup, "every_read_answers_its_end_or_error_again_when_polled_past_it") {
    REQUIRE_FALSE(producer.write_frame("a"));
    REQUIRE_FALSE(producer.finish());
    CHECK(frame_of(consumer.poll_read_frame(waiter)) == "a");
    for (int again = 0; again < 3; ++again) {
        CHECK(ended(consumer.poll_read_frame(waiter)));
        CHECK(consumer.poll_read_frames(waiter, 4).value().is_end());
        CHECK(consumer.poll_read_object(waiter).value().is_end());
        CHECK(consumer.poll_next_frame(waiter).value().is_end());
        CHECK(consumer.poll_finished(waiter).value().item() == 1);
    }

    GroupProducer aborted{1};
    GroupConsumer behind = aborted.consume();
    REQUIRE_FALSE(aborted.write_frame("a"));
    aborted.abort(Error::cancel);
    for (int again = 0; again < 3; ++again) {
        CHECK(behind.poll_read_frame(waiter).value().error() == Error::cancel);
        CHECK(behind.poll_read_frames(waiter, 4).value().error() == Error::cancel);
        CHECK(behind.poll_read_object(waiter).value().error() == Error::cancel);
        CHECK(behind.poll_next_frame(waiter).value().error() == Error::cancel);
        CHECK(behind.poll_finished(waiter).value().error() == Error::cancel);
    }
    CHECK(task.wakes() == 0);  // nothing parked on the way
}

// Rust parity (end_at_zero_is_empty, end_at_caps_and_reopens): a cap at 0 ends every
// capped read at once; clearing it re-offers the frames still cached. A batch of at most
// 0 frames is an empty batch, never an end.
TEST_CASE_FIXTURE(OneGroup, "a_cap_of_zero_ends_every_read_and_lifting_it_reopens") {
    REQUIRE_FALSE(producer.write_frame("a"));
    consumer.with_end(0);
    CHECK(ended(consumer.poll_read_frame(waiter)));
    CHECK(consumer.poll_read_frames(waiter, 4).value().is_end());
    CHECK(consumer.poll_read_object(waiter).value().is_end());
    CHECK(consumer.poll_next_frame(waiter).value().is_end());
    consumer.with_end(std::nullopt);
    CHECK(frame_of(consumer.poll_read_frame(waiter)) == "a");
    auto none = consumer.poll_read_frames(waiter, 0);
    REQUIRE(none.is_ready());
    REQUIRE(none.value().is_item());
    CHECK(none.value().item().empty());
    CHECK(consumer.poll_read_frame(waiter).is_pending());
}

// A reader polled by a second task belongs to that task: the next input change wakes
// the task that polled last, for the ungated reads too (W6).
TEST_CASE_FIXTURE(OneGroup, "the_task_that_polled_last_is_woken_by_every_read") {
    WakeCounter other_task;
    const Waiter other{other_task.waker()};
    REQUIRE_FALSE(producer.start_frame(2));
    auto next = consumer.poll_next_frame(waiter);
    REQUIRE(next.value().is_item());
    auto& frame = next.value().item();
    CHECK(frame.poll_read_chunk(waiter).is_pending());
    CHECK(frame.poll_read_chunk(other).is_pending());
    CHECK(consumer.poll_finished(waiter).is_pending());
    CHECK(consumer.poll_finished(other).is_pending());
    REQUIRE_FALSE(producer.write_chunk("x"));
    CHECK(other_task.wakes() >= 1);
    CHECK(frame.poll_read_chunk(other).value().item() == "x");
    CHECK(frame.poll_read_chunk(other).is_pending());
    other_task.reset();
    REQUIRE_FALSE(producer.write_chunk("y"));
    CHECK(other_task.wakes() >= 1);
    CHECK(frame.poll_read_chunk(other).value().item() == "y");
    REQUIRE_FALSE(producer.end_frame());
    // The chunk writes drained every registration (W2): the count's read parks again.
    CHECK(consumer.poll_finished(waiter).is_pending());
    CHECK(consumer.poll_finished(other).is_pending());
    other_task.reset();
    REQUIRE_FALSE(producer.finish());
    CHECK(other_task.wakes() >= 1);
    CHECK(consumer.poll_finished(other).value().item() == 1);
}

TEST_CASE("a_group_shared_state_carries_its_sequence") {
    GroupProducer producer{7};
    const GroupConsumer consumer = producer.consume();
    CHECK(consumer.cell().read([](const moq::model::GroupState& state) { return state.sequence; }) == 7);
}

TEST_CASE("a_group_producer_assigned_from_another_takes_its_sequence_and_its_group") {
    WakeCounter task;
    const Waiter waiter{task.waker()};
    GroupProducer producer{1};
    GroupProducer other{2};
    GroupConsumer consumer = other.consume();
    producer = std::move(other);
    CHECK(producer.sequence() == 2);
    CHECK_FALSE(producer.write_frame("moved"));  // accepted: the group is the assigned one's now
    CHECK(frame_of(consumer.poll_read_frame(waiter)) == "moved");
}
