// The moqsim commands, each given what its command line gave (runner/args.hpp). Each returns the exit
// status: 0 all passed, 1 a case failed, and throws UsageError for bad input (exit 2).
#pragma once

#include <string>
#include <vector>

#include "runner/args.hpp"

namespace moq::runner {

struct Program {
    std::string name;            // how moqsim was invoked, for the replay commands it prints
    std::string command_line{};  // the whole of it, to run the same command again
};

int sweep(const Program& program, const Given& given);
int replay(const Program& program, const Given& given);
int explore(const Program& program, const Given& given);
int corpus(const Program& program, const Given& given);
int convert(const Program& program, const Given& given);
int merge(const Program& program, const Given& given);
int list(const Program& program, const Given& given);
int shard(const Program& program, const Given& given);
int trace_diff(const Program& program, const Given& given);

// Switches one mutation site off for this process (--mutant), or explains why not.
void activate_mutant(const std::string& name);

}  // namespace moq::runner
