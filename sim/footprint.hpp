// The objects a step touched, each by its number in the run: 1 for the first object the
// run touched, 2 for the next new one, and so on. Addresses differ from run to run (the
// heap is not the same when each run begins); the order of first touches is the same on
// every run along one prefix of decisions, since runs are deterministic. Past the point
// where two runs part, one number may name different objects in the two. That loses no
// conflict: a sleeping task's step that touched an object new at that point holds the
// first new number, and the first step of the other run to touch any new object gets that
// same number, so it conflicts and wakes the task. (A run that numbers the objects before
// that point otherwise, through an address reused in one run and not in the other, turns
// the sleep sets off: sim/explorer.cpp.) A task the executor parked, woke or
// ended is named by its id (task_object), as the sleep sets name tasks. Unknown when the
// step ran code that names nothing it touches (a clock move, a spurious poll, or in a
// suite whose footprints are incomplete, a task's start, a park or a wake).
#pragma once

#include <array>
#include <cstdint>

namespace moq::sim {

class Footprint {
public:
    // A task's number, above every object's.
    static constexpr std::uint32_t task_object(std::uint32_t task) { return first_task + task; }

    void add(std::uint32_t object);  // 0: unknown
    void clear() {
        known_ = true;
        count_ = 0;
    }
    [[nodiscard]] bool known() const { return known_; }
    // Both known and no object in common: the two steps commute.
    [[nodiscard]] bool independent_of(const Footprint& other) const;

private:
    static constexpr std::uint32_t first_task = std::uint32_t{1} << 31;
    static constexpr std::size_t capacity = 8;  // more distinct objects: unknown
    std::array<std::uint32_t, capacity> objects_{};
    std::uint8_t count_ = 0;
    bool known_ = true;
};

}  // namespace moq::sim
