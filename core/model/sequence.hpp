// Group sequences. The largest u64 is no sequence: it is the end past every sequence,
// so one past any sequence (an end, a floor, the next append) is always representable
// (T1, T2). Readers may still be given it as a floor or a range bound from outside.
#pragma once

#include <cstdint>
#include <limits>

namespace moq::model {

// The highest sequence a group may land at.
inline constexpr std::uint64_t last_sequence = std::numeric_limits<std::uint64_t>::max() - 1;
// Past every sequence: an end or a floor here leaves nothing to offer.
inline constexpr std::uint64_t past_every_sequence = std::numeric_limits<std::uint64_t>::max();

// One past `sequence`, saturating at past_every_sequence: a floor or bound given from
// outside may already be there.
constexpr std::uint64_t one_past(std::uint64_t sequence) {
    return sequence >= past_every_sequence ? past_every_sequence : sequence + 1;
}

}  // namespace moq::model
