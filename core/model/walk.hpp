// The two orders a track reader walks its groups in.
#pragma once

#include <cstdint>
#include <ostream>

namespace moq::model {

enum class Walk : std::uint8_t {
    arrival,   // in the order groups landed, each once
    sequence,  // in ascending sequence, never going back
};

inline std::ostream& operator<<(std::ostream& out, Walk walk) {
    return out << (walk == Walk::arrival ? "arrival" : "sequence");
}

}  // namespace moq::model
