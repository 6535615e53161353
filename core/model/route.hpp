// The route of one logical track: which copy serves it now. Every change bumps the
// generation and wakes every reader registered on it.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>

#include "kio/cell.hpp"
#include "model/error.hpp"
#include "model/track.hpp"

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
            ++state.generation;
            previous = std::exchange(state.serving, std::move(copy));
        });
    }
    // No copy serves for now; readers wait (replaced copies keep their grace).
    void park() {
        std::optional<TrackConsumer> previous;  // dropped after unlocking: its drop may wake
        cell_.modify([&](RouteState& state) {
            ++state.generation;
            previous = std::exchange(state.serving, std::nullopt);
        });
    }
    // The logical track ends: cleanly (nullopt) or with an error. The first end wins.
    void end(std::optional<Error> error) {
        cell_.modify([&](RouteState& state) {
            if (!state.end) state.end = error;
        });
    }

    [[nodiscard]] kio::Consumer<RouteState> consume() const { return cell_.consume(); }
    [[nodiscard]] std::uint64_t generation() const {
        return cell_.read([](const RouteState& state) { return state.generation; });
    }

private:
    kio::Producer<RouteState> cell_;
};

// A reader's preferences, shared with its control handles. A write wakes the reader.
struct Preferences {
    std::uint8_t priority = 0;
    std::optional<kio::Duration> max_age;  // the budget handed-out groups are judged by
    friend bool operator==(const Preferences&, const Preferences&) = default;
};

}  // namespace moq::model
