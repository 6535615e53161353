#include "sim/decisions.hpp"

#include <algorithm>

namespace moq::sim {

namespace {

constexpr std::array<std::pair<DecisionKind, std::string_view>, 6> kind_names{{
    {DecisionKind::pick, "pick"},
    {DecisionKind::preempt, "preempt"},
    {DecisionKind::timer_tie, "timer_tie"},
    {DecisionKind::spurious_poll, "spurious_poll"},
    {DecisionKind::fresh_poll, "fresh_poll"},
    {DecisionKind::clock_jump, "clock_jump"},
}};

}  // namespace

std::string_view decision_kind_name(DecisionKind kind) {
    for (const auto& [known, name] : kind_names)
        if (known == kind) return name;
    return "unknown";
}

std::optional<DecisionKind> parse_decision_kind(std::string_view name) {
    for (const auto& [kind, known] : kind_names)
        if (known == name) return kind;
    return std::nullopt;
}

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

std::string describe_decisions(const std::vector<Decision>& decisions) {
    std::string text;
    for (const Decision& decision : decisions) {
        text += std::string(decision_kind_name(decision.kind)) + " " + std::to_string(decision.choice) + "/" +
                std::to_string(decision.options) + " " + decision.where + "\n";
    }
    return text;
}

}  // namespace moq::sim
