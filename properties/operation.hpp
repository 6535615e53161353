// One operation of a suite, as data: what `moqsim list --suites --json` prints of each
// suite's command table (properties/commands.hpp), for programs that enumerate them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace moq::properties {

// An argument a command reads of its step, and the whole numbers a generated step draws
// it from: low up to, not including, high.
struct Argument {
    const char* name;
    std::uint32_t low;
    std::uint32_t high;
};

struct Operation {
    std::string_view name;
    std::size_t weight;   // relative to the suite's other operations, in the fixed mix
    bool swarm_may_drop;  // a swarm case may leave it out
    std::vector<Argument> arguments;
};

}  // namespace moq::properties
