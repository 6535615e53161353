// Task priorities, for the strategies that run the highest priority task (PCT, POS).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/decisions.hpp"

namespace moq::sim::deciders {

class Priorities {
public:
    void set(std::uint32_t task, std::uint64_t priority) {
        if (priorities_.size() <= task) priorities_.resize(task + 1, 0);
        priorities_[task] = priority;
    }
    [[nodiscard]] std::uint64_t of(std::uint32_t task) const {
        return task < priorities_.size() ? priorities_[task] : 0;
    }
    // The index in point.tasks of the highest priority, from `first` on (the first of equals).
    [[nodiscard]] std::uint32_t highest(const DecisionPoint& point, std::uint32_t first = 0) const {
        std::uint32_t best = first;
        for (std::uint32_t i = first + 1; i < point.options; ++i)
            if (of(point.tasks[i]) > of(point.tasks[best])) best = i;
        return best;
    }

private:
    std::vector<std::uint64_t> priorities_;
};

}  // namespace moq::sim::deciders
