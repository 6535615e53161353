// Time as a plain value: a duration and a point on a clock's own time line. No clock is
// read here, so reference models and traces can use these types without the core's
// clocks.
#pragma once

#include <chrono>
#include <compare>

namespace moq::kio {

using Duration = std::chrono::nanoseconds;

// A point on a clock's own time line, measured from that clock's start.
struct Instant {
    Duration since_start{0};

    friend auto operator<=>(const Instant&, const Instant&) = default;
    friend Instant operator+(Instant at, Duration by) { return Instant{at.since_start + by}; }
    friend Duration operator-(Instant later, Instant earlier) {
        return later.since_start - earlier.since_start;
    }
};

}  // namespace moq::kio
