#include "sim/choice_list.hpp"

namespace moq::sim {

std::uint32_t ChoiceList::choose(const DecisionPoint& point) {
    const std::size_t index = recorded_.size();
    std::uint32_t choice = point.fallback;
    if (!diverged_at_ && index < expected_.size()) {
        const Decision& wanted = expected_[index];
        if (wanted.kind == point.kind && wanted.options == point.options && wanted.choice < point.options)
            choice = wanted.choice;
        else
            diverged_at_ = index;
    }
    recorded_.push_back(Decision{point.kind, point.options, choice, point.where, point.fallback});
    return choice;
}

}  // namespace moq::sim
