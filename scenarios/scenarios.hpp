// Fixed-shape programs of the real core run as simulated tasks, each checking its own
// result: the kio cell, the group reader and the resume reader under every strategy and
// drive mode. Their tests, the determinism check (sim_digest) and the simulator
// throughput benchmark run them. They live outside sim/ so that the simulator depends on
// core/kio only, never on the readers.
#pragma once

#include <string_view>
#include <vector>

#include "sim/executor.hpp"

namespace moq::scenarios {

struct Scenario {
    std::string_view name;
    std::string_view summary;
    sim::RunResult (*run)(const sim::Options& options);
};

const std::vector<Scenario>& scenarios();
const Scenario* find_scenario(std::string_view name);

}  // namespace moq::scenarios
