// The moqsim commands. Each returns the exit status: 0 all passed, 1 a case failed,
// and throws UsageError for bad input (exit 2).
#pragma once

#include <string>

namespace moq::cli {

struct Program {
    std::string name;  // how moqsim was invoked, for the replay commands it prints
};

int sweep(const Program& program, int argc, char** argv);
int replay(const Program& program, int argc, char** argv);
int corpus(const Program& program, int argc, char** argv);
int merge(const Program& program, int argc, char** argv);
int list(const Program& program, int argc, char** argv);

// Switches one mutation site off for this process (--mutant), or explains why not.
void activate_mutant(const std::string& name);

}  // namespace moq::cli
