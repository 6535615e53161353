// Fixed-shape programs of the real core run as simulated tasks, each checking its own
// result: the kio cell, the group reader and the resume reader under every strategy and
// drive mode. The executor tests, the determinism check and the sweeps run them.
#pragma once

#include <string_view>
#include <vector>

#include "sim/executor.hpp"

namespace moq::sim {

struct Scenario {
    std::string_view name;
    std::string_view summary;
    RunResult (*run)(const Options& options);
};

const std::vector<Scenario>& scenarios();
const Scenario* find_scenario(std::string_view name);

}  // namespace moq::sim
