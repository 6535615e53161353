// Replay from decisions: a decider that follows a recorded list of choices, then takes
// every point's default. A point whose kind or number of options differs from the list's
// marks the run diverged (the list came from another build or case) and takes the
// default from there on. It records every point it was asked.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "sim/decider.hpp"

namespace moq::sim {

class ChoiceList final : public Decider {
public:
    explicit ChoiceList(std::vector<Decision> expected) : expected_(std::move(expected)) {}
    std::uint32_t choose(const DecisionPoint& point) override;
    [[nodiscard]] const std::vector<Decision>& recorded() const { return recorded_; }
    // The first point that differed from the list, if one did.
    [[nodiscard]] std::optional<std::size_t> diverged_at() const { return diverged_at_; }

private:
    std::vector<Decision> expected_;
    std::vector<Decision> recorded_;
    std::optional<std::size_t> diverged_at_;
};

}  // namespace moq::sim
