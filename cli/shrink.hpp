// Minimising a failing case along its RapidCheck shrink tree.
#pragma once

#include <cstddef>
#include <memory>

#include "properties/suite.hpp"

namespace moq::cli {

struct Shrunk {
    std::unique_ptr<properties::Case> smallest;
    properties::CaseOutcome outcome;
    std::size_t steps = 0;
};

// Repeatedly takes the first smaller case that still fails, until none does.
Shrunk shrink(const properties::Case& failing, const properties::RunSettings& settings);

}  // namespace moq::cli
