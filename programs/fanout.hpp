// The session fanout, as poll-based tasks any executor runs: one publisher lands
// one-frame groups on a track as fast as a pace cell allows, and each viewer reads the
// track as an export does (a TrackSubscriber over a ResumeReader on the track's route),
// taking every group and reading its frame, in order. The simulator runs it against the
// resume model (properties/fanout_suite.cpp); the runtime runs it on worker threads for
// the session_fanout_threads benchmark (bench/session_fanout.cpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>

#include "kio/cell.hpp"
#include "kio/clock.hpp"
#include "kio/poll.hpp"
#include "kio/waiter.hpp"
#include "model/error.hpp"
#include "model/group.hpp"
#include "model/route.hpp"
#include "model/subscriber.hpp"
#include "model/track.hpp"

namespace moq::programs {

// How far the publisher may go: the groups it may have landed in all, and whether it
// finishes the track once it has landed them.
struct Pace {
    std::uint64_t groups = 0;
    bool last = false;
};

// What the tasks tell whoever runs them, as it happens: the publisher's writes (each
// before it is made, and once it returned) and every answer a viewer's reads gave.
// Called on the task's own thread; the defaults do nothing.
class FanoutListener {
public:
    virtual ~FanoutListener() = default;

    // The publisher is about to land group `sequence` (append, one frame, finish).
    virtual void landing(std::uint64_t /*sequence*/) {}
    // The land returned: the group it made (none: the track refused it).
    virtual void landed(std::optional<std::uint64_t> /*sequence*/) {}
    // The publisher is about to finish the track, and has finished it.
    virtual void finishing() {}
    virtual void finished(bool /*accepted*/) {}

    // Viewer `viewer` polls its subscriber; the poll returned (`walked`: the read walked
    // rather than answering from its idle gate; `walks`: its walks so far), then it
    // answered Pending, or a group (`source`: the generation of the copy it came from, as
    // the reader reports it), or the read's end.
    virtual void polling(std::size_t /*viewer*/) {}
    virtual void polled(std::size_t /*viewer*/, bool /*walked*/, std::uint64_t /*walks*/) {}
    virtual void pending(std::size_t /*viewer*/, bool /*walked*/) {}
    virtual void group(std::size_t /*viewer*/, std::uint64_t /*sequence*/, std::optional<std::uint64_t> /*source*/) {}
    virtual void ended(std::size_t /*viewer*/, std::optional<model::Error> /*error*/) {}
    // The viewer starts reading a group it took (groups are read one after another), a
    // frame of it, and the group read's end.
    virtual void reading(std::size_t /*viewer*/, std::uint64_t /*sequence*/) {}
    virtual void frame(std::size_t /*viewer*/, std::uint64_t /*sequence*/, const std::string& /*payload*/) {}
    virtual void group_ended(std::size_t /*viewer*/, std::uint64_t /*sequence*/,
                             std::optional<model::Error> /*error*/) {}
};

// What the tasks share: the track, the route serving it, and the pace the driver raises.
class FanoutTrack {
public:
    FanoutTrack() { route_.serve_from(track_.consume()); }

    // Lets the publisher land up to `groups` in all.
    void allow(std::uint64_t groups) {
        pace_.modify([&](Pace& pace) { pace.groups = std::max(pace.groups, groups); });
    }
    // The publisher finishes the track once it has landed what it is allowed to.
    void finish_after_allowed() {
        pace_.modify([](Pace& pace) { pace.last = true; });
    }

    // A subscriber with its own preferences, built as an export builds it.
    [[nodiscard]] model::TrackSubscriber subscriber(const kio::Producer<model::Preferences>& preferences,
                                                    kio::Clock& clock) const {
        return model::TrackSubscriber(model::ResumeReader(route_.consume(), preferences.consume(), clock));
    }
    [[nodiscard]] model::TrackProducer& track() { return track_; }
    [[nodiscard]] kio::Consumer<Pace> pace() const { return pace_.consume(); }

private:
    model::TrackProducer track_;
    model::Route route_;
    kio::Producer<Pace> pace_;
};

class Publisher {
public:
    // The payload of the one frame of group `sequence`.
    using Payload = std::function<std::string(std::uint64_t sequence)>;

    Publisher(FanoutTrack& track, Payload payload, FanoutListener& listener)
        : track_(&track), pace_(track.pace()), payload_(std::move(payload)), listener_(&listener) {}

    // Lands one group a poll while the pace allows more (waking itself to land the
    // next, so other tasks run in between); Ready once it finished the track.
    kio::Poll<kio::Done> poll(const kio::Waiter& waiter);
    [[nodiscard]] std::uint64_t landed() const { return landed_; }

private:
    void land();

    FanoutTrack* track_;
    kio::Consumer<Pace> pace_;
    Payload payload_;
    FanoutListener* listener_;
    std::uint64_t landed_ = 0;
};

class Viewer {
public:
    Viewer(std::size_t index, const FanoutTrack& track, kio::Clock& clock, FanoutListener& listener)
        : index_(index), subscriber_(track.subscriber(preferences_, clock)), listener_(&listener) {}

    // Takes every group the subscriber hands out, then reads the taken groups' frames
    // in order; Ready once the subscriber ended and every taken group's read ended.
    kio::Poll<kio::Done> poll(const kio::Waiter& waiter);
    // For checks after a run (its reader's walk counters): not while a poll runs.
    [[nodiscard]] model::TrackSubscriber& subscriber() { return subscriber_; }
    // The viewer's preferences change, as its control handle changes them: its reader is
    // woken, with nothing new to read. Safe from any thread.
    void set_priority(std::uint8_t priority) {
        preferences_.modify([&](model::Preferences& preferences) { preferences.priority = priority; });
    }

private:
    void take_groups(const kio::Waiter& waiter);
    // False when the front group's read is Pending.
    bool read_groups(const kio::Waiter& waiter);

    std::size_t index_;
    kio::Producer<model::Preferences> preferences_;  // before the subscriber, which reads them
    model::TrackSubscriber subscriber_;
    FanoutListener* listener_;
    std::deque<model::GroupConsumer> taken_;  // oldest first; the front one is read
    bool reading_front_ = false;              // the listener heard the front's read begin
    bool ended_ = false;                      // the subscriber answered its end
};

}  // namespace moq::programs
