// A group: one sequence number and an ordered stream of frames, one frame in flight at
// a time. The producer writes; every consumer reads every frame through its own cursor.
// The whole-frame reads park through an idle gate (see idle.hpp); everything a consumer
// changes about itself disarms that gate.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "kio/cell.hpp"
#include "kio/poll.hpp"
#include "kio/waiter.hpp"
#include "model/codec.hpp"
#include "model/error.hpp"
#include "model/expiry.hpp"
#include "model/gated_read.hpp"
#include "model/group_state.hpp"
#include "model/idle.hpp"
#include "model/next.hpp"
#include "model/recover.hpp"
#include "util/mutation.hpp"

namespace moq::model {

class GroupConsumer;

class GroupProducer {
public:
    explicit GroupProducer(std::uint64_t sequence, GroupLimits limits = {});
    // Copies share the group; the last one to go, unless the group finished or was
    // aborted, releases the cache and ends every reader with `dropped`.
    GroupProducer(const GroupProducer&) = default;
    GroupProducer(GroupProducer&&) noexcept = default;
    GroupProducer& operator=(const GroupProducer&) = delete;
    GroupProducer& operator=(GroupProducer&& other) noexcept;
    ~GroupProducer() { release(); }

    // A whole frame in one step. Errors leave the group as it was, except a limit,
    // which aborts the group.
    std::optional<Error> write_frame(std::string payload);
    // A frame of a declared size, written in chunks; each chunk wakes the readers.
    std::optional<Error> start_frame(std::size_t size);
    std::optional<Error> write_chunk(std::string_view chunk);
    std::optional<Error> end_frame();
    // No more frames. Readers drain what there is, then end cleanly.
    std::optional<Error> finish();
    // Ends the group with an error; readers that have not drained it get the error.
    void abort(Error error);

    [[nodiscard]] GroupConsumer consume() const;
    [[nodiscard]] std::uint64_t sequence() const { return sequence_; }
    [[nodiscard]] std::size_t frame_count() const;

private:
    // Why a new frame of `size` bytes cannot start now, if it cannot.
    static std::optional<Error> refuse_new_frame(const GroupState& state, std::size_t size);
    // Lets go of this handle (see the destructor).
    void release();

    std::uint64_t sequence_;
    kio::Producer<GroupState> cell_;
};

// A frame handed out by poll_next_frame: its bytes, read as they arrive.
class FrameReader {
public:
    FrameReader(GroupCell cell, std::size_t index) : cell_(std::move(cell)), index_(index) {}
    // New bytes, the end of the frame, or the group's error.
    kio::Poll<Next<std::string>> poll_read_chunk(const kio::Waiter& waiter);
    [[nodiscard]] std::size_t index() const { return index_; }

private:
    GroupCell cell_;
    std::size_t index_;
    std::size_t read_ = 0;
};

// The egress read: a frame with its index, in the consumer's codec, and when the group
// goes stale for this reader (if it has an expiry).
struct Object {
    std::size_t index = 0;
    std::string payload;
    std::optional<kio::Instant> stale_at;
};

class GroupConsumer {
public:
    GroupConsumer(std::uint64_t sequence, GroupCell cell) : sequence_(sequence), cell_(std::move(cell)) {}
    // A clone reads on its own from the same position; it starts without a gate.
    GroupConsumer(const GroupConsumer& other);
    GroupConsumer(GroupConsumer&&) noexcept = default;
    GroupConsumer& operator=(GroupConsumer&&) noexcept = default;
    GroupConsumer& operator=(const GroupConsumer&) = delete;

    // Gated reads. The gate is checked inline; only a walk calls out of line.
    kio::Poll<Next<Bytes>> poll_read_frame(const kio::Waiter& waiter) {
        if (idle(waiter)) return kio::Poll<Next<Bytes>>::pending();
        return read_frame_walk(waiter);
    }
    // Up to `max` frames; Pending only while there is none (a short batch is no end).
    kio::Poll<Next<std::vector<Bytes>>> poll_read_frames(const kio::Waiter& waiter, std::size_t max) {
        if (max != 0 && idle(waiter)) return kio::Poll<Next<std::vector<Bytes>>>::pending();
        return read_frames_walk(waiter, max);
    }
    kio::Poll<Next<Object>> poll_read_object(const kio::Waiter& waiter) {
        if (idle(waiter)) return kio::Poll<Next<Object>>::pending();
        return read_object_walk(waiter);
    }

    // Ungated reads.
    // The next frame as a chunked reader, even while it is still arriving.
    kio::Poll<Next<FrameReader>> poll_next_frame(const kio::Waiter& waiter);
    // The frame count once the group finished (kept through a later abort), the cursor's
    // index after an expiry end, or the error.
    kio::Poll<Next<std::size_t>> poll_finished(const kio::Waiter& waiter);

    // Builders and mutators: each is a disarm point.
    GroupConsumer& skip_to(std::size_t index);
    GroupConsumer& with_range(std::size_t start, std::optional<std::size_t> end);
    GroupConsumer& with_end(std::optional<std::size_t> end);
    GroupConsumer& compressed(Codec codec = Codec::run_length);
    GroupConsumer& with_expiry(std::shared_ptr<Expiry> expiry);
    GroupConsumer& with_recover(std::unique_ptr<Recover> recover);
    // Counts the payload bytes of the whole frames this reader hands out (stats only: not a disarm point,
    // it changes no answer).
    GroupConsumer& with_meter(std::shared_ptr<std::atomic<std::uint64_t>> bytes) {
        bytes_ = std::move(bytes);
        return *this;
    }

    [[nodiscard]] std::uint64_t sequence() const { return sequence_; }
    [[nodiscard]] std::size_t index() const { return index_; }
    // The shared group this cursor reads, for a replacement built from it.
    [[nodiscard]] const GroupCell& cell() const { return cell_; }
    // Whether the group was aborted (GroupState::aborted), read under its own lock.
    [[nodiscard]] bool aborted() const {
        return cell_.read([](const GroupState& state) { return state.aborted(); });
    }
    [[nodiscard]] const WalkCounter& walk_counter() const { return reads_.counter(); }
    [[nodiscard]] bool has_gate() const { return reads_.has_gate(); }
    [[nodiscard]] bool gate_armed() const { return reads_.armed(); }

private:
    // The idle path of every gated read.
    bool idle(const kio::Waiter& waiter) {
        return reads_.answer_parked(waiter, OneWalk{}, MOQ_SITE("group.gate.check", gate));
    }
    kio::Poll<Next<Bytes>> read_frame_walk(const kio::Waiter& waiter);
    kio::Poll<Next<std::vector<Bytes>>> read_frames_walk(const kio::Waiter& waiter, std::size_t max);
    kio::Poll<Next<Object>> read_object_walk(const kio::Waiter& waiter);
    template <class T, class Walk>
    kio::Poll<Next<T>> gated(const kio::Waiter& waiter, Walk&& walk);
    // One frame at the cursor, through the resume loop and the expiry check.
    kio::Poll<Next<Bytes>> walk_frame(const kio::Waiter& waiter);
    kio::Poll<Next<Bytes>> read_once(const kio::Waiter& waiter);
    // Runs `read` and, while it fails or stalls, replaces the copy through the recover.
    template <class T, class Read>
    kio::Poll<Next<T>> resumed(const kio::Waiter& waiter, Read&& read);
    // The resume loop itself: `read` and, while it fails or stalls, the next copy.
    template <class T, class Read>
    kio::Poll<Next<T>> recovering(const kio::Waiter& waiter, Read&& read);
    // An error the resume loop hands out stays the answer of every later read.
    template <class T>
    kio::Poll<Next<T>> give_up(kio::Poll<Next<T>> result);
    void give_up_with(Error error);
    // Bounded: a route that keeps offering copies that fail at once must not spin.
    static constexpr int max_adoptions = 8;
    // The verdict for a read about to park: nullopt to stay Pending.
    std::optional<Next<std::monostate>> expiry_verdict(const kio::Waiter& waiter);
    [[nodiscard]] bool capped() const { return end_ && index_ >= *end_; }
    void disarm() { reads_.disarm(); }

    std::uint64_t sequence_;
    GroupCell cell_;
    std::size_t index_ = 0;
    std::optional<std::size_t> end_;
    Codec codec_ = Codec::none;
    std::shared_ptr<Expiry> expiry_;
    bool expired_ = false;
    bool ended_ = false;
    std::optional<Error> given_up_;                      // no route could continue the group
    std::optional<kio::Duration> last_budget_;           // the reader's budget at the last verdict
    std::shared_ptr<std::atomic<std::uint64_t>> bytes_;  // the meter, if any
    std::unique_ptr<Recover> recover_;
    GatedRead<OneWalk> reads_{2};  // one kind of frame-read walk
};

}  // namespace moq::model
