// The moqsim commands, each given the arguments after its name. Each returns the exit
// status: 0 all passed, 1 a case failed, and throws UsageError for bad input (exit 2).
#pragma once

#include <string>
#include <vector>

namespace moq::runner {

struct Program {
    std::string name;  // how moqsim was invoked, for the replay commands it prints
};

int sweep(const Program& program, const std::vector<std::string>& arguments);
int replay(const Program& program, const std::vector<std::string>& arguments);
int explore(const Program& program, const std::vector<std::string>& arguments);
int corpus(const Program& program, const std::vector<std::string>& arguments);
int merge(const Program& program, const std::vector<std::string>& arguments);
int list(const Program& program, const std::vector<std::string>& arguments);
int shard(const Program& program, const std::vector<std::string>& arguments);
int trace_diff(const Program& program, const std::vector<std::string>& arguments);

// Switches one mutation site off for this process (--mutant), or explains why not.
void activate_mutant(const std::string& name);

}  // namespace moq::runner
