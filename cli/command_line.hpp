// moqsim's command line on CLI11: each command's options with their help (commands.cpp),
// what a parsed command gave as the runner reads it (runner::Given), and every syntax
// error as one line with a suggestion where a name is near a known one.
#pragma once

#include <deque>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "runner/args.hpp"
#include "runner/commands.hpp"

namespace moq::cli {

// One command: its CLI11 subcommand, the runner's function it calls, and where CLI11 puts
// the arguments that are no option.
struct Command {
    CLI::App* app = nullptr;
    int (*run)(const runner::Program&, const runner::Given&) = nullptr;
    std::vector<std::string> positional;
};

class CommandLine {
public:
    CommandLine();
    // Parses `arguments` (argv without the program's name) and runs the command. Returns
    // the exit status; a syntax error throws runner::UsageError with its one line.
    int run(const runner::Program& program, const std::vector<std::string>& arguments);

private:
    // commands.cpp: the commands and their options.
    void add_commands();
    Command& add(const char* name, const char* summary, int (*runs)(const runner::Program&, const runner::Given&));
    // CLI11's error as one line in moqsim's words.
    [[noreturn]] void refuse(const CLI::ParseError& error, const std::vector<std::string>& arguments) const;
    [[nodiscard]] const Command* chosen() const;

    CLI::App app_;
    std::deque<Command> commands_;  // a deque: each Command's address stays put for CLI11
};

// The option, command or name of `known` closest to `given` (few edits, or a prefix), if
// one is close enough to suggest: "--seeds" for "--sed".
std::string nearest(const std::string& given, const std::vector<std::string>& known);

}  // namespace moq::cli
