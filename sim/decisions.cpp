#include "sim/decisions.hpp"

#include <array>
#include <utility>

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

kio::Duration clock_jump_size(kio::Duration max, std::uint32_t choice) {
    const std::int64_t largest = max.count() > 0 ? max.count() - 1 : 0;
    return kio::Duration(largest / static_cast<std::int64_t>(clock_jump_sizes) * static_cast<std::int64_t>(choice) +
                         (choice == clock_jump_sizes ? largest % static_cast<std::int64_t>(clock_jump_sizes) : 0));
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
