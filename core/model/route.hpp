// The route of one logical track: which copy serves it now. Every change bumps the
// generation and wakes every reader registered on it.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <utility>

#include "kio/cell.hpp"
#include "model/error.hpp"
#include "model/track.hpp"
#include "util/assert.hpp"
#include "util/probe.hpp"

namespace moq::model {

struct RouteState {
    static constexpr kio::LockLevel lock_level = kio::LockLevel::route;  // its cell's, in the lock order
    std::uint64_t generation = 0;
    std::optional<TrackConsumer> serving;     // none while parked
    std::optional<std::optional<Error>> end;  // set once: a clean end or an error
};

class Route {
public:
    Route() : cell_(std::in_place) {}

    // Serves the track from `copy` from now on.
    void serve_from(TrackConsumer copy) {
        std::optional<TrackConsumer> previous;  // dropped after unlocking: its drop may wake
        cell_.modify([&](RouteState& state) {
            bump(state);
            previous = std::exchange(state.serving, std::move(copy));
            MOQ_ASSERT(state.serving.has_value());
        });
    }
    // No copy serves for now; readers wait (replaced copies keep their grace).
    void park() {
        std::optional<TrackConsumer> previous;  // dropped after unlocking: its drop may wake
        cell_.modify([&](RouteState& state) {
            bump(state);
            previous = std::exchange(state.serving, std::nullopt);
            // Parked again with no copy serving: the generation still moves (R1).
            MOQ_SOMETIMES("route.park.while_parked", !previous.has_value());
            MOQ_ASSERT(!state.serving);
        });
    }
    // The logical track ends: cleanly (nullopt) or with an error. The first end wins.
    void end(std::optional<Error> error) {
        cell_.modify([&](RouteState& state) {
            // A second end: the first one stays (R1).
            MOQ_SOMETIMES("route.end.second_end_ignored", state.end.has_value());
            if (!state.end) state.end = error;
            MOQ_ASSERT(state.end.has_value());  // the first end stays
        });
    }

    [[nodiscard]] kio::Consumer<RouteState> consume() const { return cell_.consume(); }
    [[nodiscard]] std::uint64_t generation() const {
        return cell_.read([](const RouteState& state) { return state.generation; });
    }

private:
    // Every change bumps the generation, which never wraps: readers tell a new route by it (R1).
    static void bump(RouteState& state) {
        MOQ_ASSERT_LT(state.generation, std::numeric_limits<std::uint64_t>::max());
        ++state.generation;
        MOQ_ASSERT_GT(state.generation, 0u);
    }

    kio::Producer<RouteState> cell_;
};

// A reader's preferences, shared with its control handles. A write wakes the reader.
struct Preferences {
    std::uint8_t priority = 0;
    std::optional<kio::Duration> max_age;  // the budget handed-out groups are judged by
    friend bool operator==(const Preferences&, const Preferences&) = default;
};

}  // namespace moq::model
