// A front: one logical track served by a route over copies, read by one resume reader,
// on a manual clock. Copies `a`, `b` and `c` are tracks that carry the same groups.
#pragma once

#include <doctest/doctest.h>

#include <chrono>
#include <cstddef>
#include <string>
#include <variant>

#include "kio/cell.hpp"
#include "kio/clock.hpp"
#include "kio/manual_clock.hpp"
#include "model/resume.hpp"
#include "model/route.hpp"
#include "model/track.hpp"
#include "support/counting_waker.hpp"

namespace moq::test {

// `Window`: the reader's delivered window (ResumeOptions::delivered_window).
template <std::size_t Window = 1024>
struct FrontWith {
    WakeCounter task;
    const kio::Waiter waiter{task.waker()};
    kio::ManualClock clock;
    model::Route route;
    kio::Producer<model::Preferences> preferences;
    model::TrackProducer a, b, c;
    model::ResumeReader reader{route.consume(), preferences.consume(), clock,
                               model::ResumeOptions{.grace = std::chrono::seconds(1), .delivered_window = Window}};

    // A finished one-frame group whose payload names it.
    static void land(model::TrackProducer& copy, std::uint64_t sequence) {
        auto created = copy.create_group(sequence);
        REQUIRE(std::holds_alternative<model::GroupProducer>(created));
        auto& group = std::get<model::GroupProducer>(created);
        REQUIRE_FALSE(group.write_frame("group " + std::to_string(sequence)));
        REQUIRE_FALSE(group.finish());
    }

    // Like land, but keeps the group's producer, to abort it later.
    static model::GroupProducer land_kept(model::TrackProducer& copy, std::uint64_t sequence) {
        auto created = copy.create_group(sequence);
        REQUIRE(std::holds_alternative<model::GroupProducer>(created));
        auto group = std::move(std::get<model::GroupProducer>(created));
        REQUIRE_FALSE(group.write_frame("group " + std::to_string(sequence)));
        REQUIRE_FALSE(group.finish());
        return group;
    }

    // The sequence the walk's next group has, peeked and not taken.
    std::uint64_t peek(model::Walk walk) {
        auto peeked = reader.poll_peek_group(waiter, walk);
        REQUIRE(peeked.is_ready());
        REQUIRE(peeked.value().is_item());
        return peeked.value().item()->sequence;
    }

    // Peeks and takes the next group of `walk`; its sequence.
    std::uint64_t take(model::Walk walk) {
        const std::uint64_t sequence = peek(walk);
        auto group = reader.take();
        REQUIRE(group.has_value());
        CHECK(group->sequence() == sequence);
        return sequence;
    }

    bool pending(model::Walk walk) { return reader.poll_peek_group(waiter, walk).is_pending(); }
    // Serves `a` with the range [0, 1): group 0 is handed out, group 1 is held past the end.
    void hold_one_past_the_end() {
        route.serve_from(a.consume());
        reader.set_range(0, 1);
        land(a, 0);
        land(a, 1);
        CHECK(take(model::Walk::arrival) == 0);
        CHECK(ended(model::Walk::arrival));  // everything in [0, 1) is handed out; 1 is held back
    }
    // The error `of` answers for `walk` now (it must answer one).
    model::Error error_of(model::ResumeReader& of, model::Walk walk) {
        auto peek = of.poll_peek_group(waiter, walk);
        REQUIRE(peek.is_ready());
        REQUIRE(peek.value().is_error());
        return peek.value().error();
    }
    bool ended(model::Walk walk) {
        auto peek = reader.poll_peek_group(waiter, walk);
        return peek.is_ready() && peek.value().is_end();
    }
    // Two parks in a row: the gate of `walk` is set up, then armed.
    void park_until_armed(model::Walk walk) {
        REQUIRE(pending(walk));
        REQUIRE(pending(walk));
        REQUIRE(reader.gate_armed(walk));
    }
};

using Front = FrontWith<>;

}  // namespace moq::test
