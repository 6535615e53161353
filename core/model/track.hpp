// A track: groups by sequence, and the order they landed in. The producer creates and
// finishes groups; a cursor walks them in arrival or sequence order through its own
// idle gate.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <variant>
#include <vector>

#include "kio/cell.hpp"
#include "kio/poll.hpp"
#include "kio/waiter.hpp"
#include "model/error.hpp"
#include "model/gated_read.hpp"
#include "model/group.hpp"
#include "model/next.hpp"
#include "model/sequence.hpp"
#include "model/walk.hpp"
#include "util/mutation.hpp"

namespace moq::model {

struct TrackState {
    static constexpr kio::LockLevel lock_level = kio::LockLevel::track;  // its cell's, in the lock order
    std::map<std::uint64_t, GroupConsumer> groups;                       // a reader at frame 0 of each group
    std::vector<std::uint64_t> arrival;                                  // sequences in landing order
    std::optional<std::uint64_t> max_sequence;
    std::optional<std::uint64_t> final_sequence;  // exclusive end, once finished
    std::optional<Error> abort;
};

class TrackConsumer;

class TrackProducer {
public:
    TrackProducer() : cell_(std::in_place) {}

    // A new group at `sequence`; refused once the track is finished at or below it,
    // aborted, when the sequence already exists (`closed`), or past last_sequence
    // (`too_large`).
    std::variant<GroupProducer, Error> create_group(std::uint64_t sequence, GroupLimits limits = {});
    // A new group one past the newest, read and landed under one lock; `too_large` once
    // the newest is last_sequence.
    std::variant<GroupProducer, Error> append_group(GroupLimits limits = {});
    // No group past the newest; groups below it may still land.
    std::optional<Error> finish();
    // No group at or past `final_sequence`, which must lie above the newest.
    std::optional<Error> finish_at(std::uint64_t final_sequence);
    void abort(Error error);

    [[nodiscard]] TrackConsumer consume() const;
    [[nodiscard]] std::optional<std::uint64_t> latest() const;

private:
    // Lands at `at`, or one past the newest without it.
    std::variant<GroupProducer, Error> land(std::optional<std::uint64_t> at, GroupLimits limits);
    std::optional<Error> finish_at(std::optional<std::uint64_t> final_sequence);

    kio::Producer<TrackState> cell_;
};

class TrackCursor;

class TrackConsumer {
public:
    explicit TrackConsumer(kio::Consumer<TrackState> cell) : cell_(std::move(cell)) {}

    [[nodiscard]] TrackCursor cursor(Walk walk, std::uint64_t floor = 0) const;
    // The group at `sequence` once it lands, or the track's end.
    kio::Poll<Next<GroupConsumer>> poll_group(std::uint64_t sequence, const kio::Waiter& waiter) const;
    [[nodiscard]] std::optional<std::uint64_t> latest() const;
    // The error the track was aborted with, if it was.
    [[nodiscard]] std::optional<Error> aborted() const {
        return cell_.read([](const TrackState& state) { return state.abort; });
    }
    // Registers `waiter` for the next change of the track, whatever it is.
    void watch(const kio::Waiter& waiter) const {
        cell_.read_and_watch(waiter, [](const TrackState&) { return 0; });
    }
    [[nodiscard]] const kio::Consumer<TrackState>& cell() const { return cell_; }

private:
    kio::Consumer<TrackState> cell_;
};

// What a cursor peeked: the group it would hand out next.
struct Peek {
    std::uint64_t sequence = 0;
    GroupConsumer group;
};

class TrackCursor {
public:
    TrackCursor(TrackConsumer track, Walk walk, std::uint64_t floor)
        : track_(std::move(track)), walk_(walk), floor_(floor) {}
    TrackCursor(TrackCursor&&) noexcept = default;
    TrackCursor& operator=(TrackCursor&&) noexcept = default;

    // The next group without handing it out. Gated: a re-poll by the same task that
    // nothing woke answers Pending without walking. An arrival walk keeps its peek until
    // taken, unless the group is aborted meanwhile; a sequence walk looks again each
    // time, since a lower group may land. An aborted group is never offered.
    kio::Poll<Next<const Peek*>> poll_peek(const kio::Waiter& waiter) {
        if (!(peeked_ && walk_ == Walk::arrival) &&
            reads_.answer_parked(waiter, walk_, MOQ_SITE("track.gate.check", gate)))
            return kio::Poll<Next<const Peek*>>::pending();
        return peek_walk(waiter);
    }
    // Hands out the peeked group and moves past it. Not a disarm point: it follows a
    // Ready peek, which left the gate unarmed.
    std::optional<Peek> take();
    // Skips the peeked group without handing it out (like take).
    void skip();
    // Sequences below `floor` are never offered again. A disarm point.
    void raise_floor(std::uint64_t floor);
    // For a caller that parks with a peek in hand (a Ready peek registers nothing):
    // registers `waiter` for the track's next change and for the end of the peeked
    // group, whose abort changes what this cursor answers next. A change since the walk
    // that peeked (a landing, the track's end or abort, the peeked group's abort) woke
    // nobody this caller registered, so it wakes `waiter` at once.
    void watch(const kio::Waiter& waiter) const;

    [[nodiscard]] Walk walk() const { return walk_; }
    [[nodiscard]] const TrackConsumer& track() const { return track_; }
    [[nodiscard]] const WalkCounter& walk_counter() const { return reads_.counter(); }
    [[nodiscard]] bool gate_armed() const { return reads_.armed(); }

private:
    kio::Poll<Next<const Peek*>> peek_walk(const kio::Waiter& waiter);
    kio::Poll<Next<const Peek*>> walk_once(const kio::Waiter& waiter);
    // Under the track's lock: peeks the next group, or answers the end, or nullopt.
    std::optional<Next<std::monostate>> walk_arrival_or_sequence(const TrackState& state);
    void disarm() { reads_.disarm(); }

    TrackConsumer track_;
    Walk walk_;
    std::uint64_t floor_;            // sequences below are not offered
    std::size_t arrival_index_ = 0;  // next arrival entry to look at
    // What the last walk saw of the track, for watch() to tell a change since.
    struct Seen {
        std::size_t landed = 0;
        bool ended = false;
        bool aborted = false;
        friend bool operator==(const Seen&, const Seen&) = default;
    };
    static Seen seen_in(const TrackState& state) {
        return {state.arrival.size(), state.final_sequence.has_value(), state.abort.has_value()};
    }
    Seen seen_;
    std::optional<Peek> peeked_;
    GatedRead<Walk> reads_{1};
};

}  // namespace moq::model
