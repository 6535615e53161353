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

    // The instant no clock reaches: a deadline that never comes (what a deadline too far
    // to represent saturates to). No timer is kept for it and no clock moves to it.
    static constexpr Instant never() { return Instant{Duration::max()}; }
    // The farthest instant a clock may reach, one step short of never.
    static constexpr Instant last() { return Instant{Duration::max() - Duration(1)}; }

    // clang-tidy 14 takes the 0 a rewritten `a < b` compares the ordering with for a null
    // pointer (llvm/llvm-project#53961, fixed in clang-tidy 18): there is no pointer here.
    friend auto operator<=>(const Instant&, const Instant&) = default;  // NOLINT(modernize-use-nullptr)
    // Saturating: a deadline too far to represent is the farthest instant, never a
    // wrapped one in the past (which would fire at once).
    friend Instant operator+(Instant at, Duration by) { return Instant{saturating_add(at.since_start, by)}; }
    friend Duration operator-(Instant later, Instant earlier) {
        Duration::rep difference = 0;
        if (__builtin_sub_overflow(later.since_start.count(), earlier.since_start.count(), &difference))
            return later > earlier ? Duration::max() : Duration::min();
        return Duration(difference);
    }

    static Duration saturating_add(Duration a, Duration b) {
        Duration::rep sum = 0;
        if (__builtin_add_overflow(a.count(), b.count(), &sum))
            return b.count() > 0 ? Duration::max() : Duration::min();
        return Duration(sum);
    }
};

}  // namespace moq::kio
