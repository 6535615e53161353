#include "sim/footprint.hpp"

#include <algorithm>

namespace moq::sim {

void Footprint::add(std::uint32_t object) {
    if (!known_) return;
    if (object == 0) {
        known_ = false;
        return;
    }
    const auto end = objects_.begin() + count_;
    if (std::find(objects_.begin(), end, object) != end) return;
    if (count_ == capacity) {
        known_ = false;
        return;
    }
    objects_[count_++] = object;
}

bool Footprint::independent_of(const Footprint& other) const {
    if (!known_ || !other.known_) return false;
    for (std::uint8_t i = 0; i < count_; ++i)
        for (std::uint8_t j = 0; j < other.count_; ++j)
            if (objects_[i] == other.objects_[j]) return false;
    return true;
}

}  // namespace moq::sim
