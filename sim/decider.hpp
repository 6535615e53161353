// What makes every decision of a run (sim/decisions.hpp lists the points). The executor
// asks one Decider at each point and never asks which one it holds: the seeded strategies
// of a sweep (FIFO, random, PCT, POS, SURW: sim/strategy.hpp), the explorer's depth-first
// search (sim/explorer.hpp), a recorded list of choices (sim/choice_list.hpp) and the
// guided search's bytes (properties/guided.hpp) are each one implementation.
#pragma once

#include <cstdint>

#include "sim/decisions.hpp"

namespace moq::sim {

class Decider {
public:
    Decider() = default;
    virtual ~Decider() = default;
    Decider(const Decider&) = delete;
    Decider& operator=(const Decider&) = delete;

    // The choice at `point`, below point.options.
    virtual std::uint32_t choose(const DecisionPoint& point) = 0;
    // A task exists from now on (ids are dense, in spawn order).
    virtual void spawned(std::uint32_t /*task*/) {}

    // Footprints, for a decider that prunes by them (wants_footprints): the step since the
    // last choice touched `object` (null: something unknown), or changed what the executor
    // keeps of task `task` (parked, woken, ended).
    virtual void touched(const void* /*object*/) {}
    virtual void touched_task(std::uint32_t /*task*/) {}
    [[nodiscard]] virtual bool wants_footprints() const { return false; }
    // Whether choose() wants DecisionPoint::state (computing it costs a hash of the run).
    [[nodiscard]] virtual bool wants_state() const { return false; }
};

}  // namespace moq::sim
