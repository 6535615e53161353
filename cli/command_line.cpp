#include "cli/command_line.hpp"

#include <algorithm>

namespace moq::cli {

namespace {

// The edits that make `a` into `b` (Levenshtein), for suggestions.
std::size_t edits(const std::string& a, const std::string& b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

// The names of `app`'s options, as a user types them.
std::vector<std::string> option_names(const CLI::App& app) {
    std::vector<std::string> names;
    for (const CLI::Option* option : app.get_options())
        for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
    return names;
}

std::string with_suggestion(std::string message, const std::string& given, const std::vector<std::string>& known) {
    if (const std::string near = nearest(given, known); !near.empty()) message += " (did you mean " + near + "?)";
    return message;
}

// "--shrink=yes": a switch given a value.
std::string switch_given_a_value(const std::string& name, const std::vector<std::string>& arguments) {
    std::string given = name;
    for (const std::string& argument : arguments)
        if (argument.starts_with(name + "=")) given = argument;
    return "'" + given + "': " + name + " takes no value";
}

}  // namespace

std::string nearest(const std::string& given, const std::vector<std::string>& known) {
    std::string best;
    std::size_t fewest = std::max<std::size_t>(2, given.size() / 3) + 1;
    for (const std::string& name : known) {
        const std::size_t distance = name.starts_with(given) && given.size() > 3 ? 1 : edits(given, name);
        if (distance < fewest) {
            fewest = distance;
            best = name;
        }
    }
    return best;
}

CommandLine::CommandLine() : app_("moqsim: a deterministic simulation and model-checking harness", "moqsim") {
    app_.require_subcommand(0, 1);
    app_.footer(
        "moqsim COMMAND --help gives a command's options.\n"
        "Exit status: 0 passed, 1 a case failed (or hung), 2 bad input, 3 an internal error.");
    add_commands();
}

Command& CommandLine::add(const char* name, const char* summary,
                          int (*runs)(const runner::Program&, const runner::Given&)) {
    Command& command = commands_.emplace_back();
    command.app = app_.add_subcommand(name, summary);
    command.run = runs;
    return command;
}

const Command* CommandLine::chosen() const {
    for (const Command& command : commands_)
        if (command.app->parsed()) return &command;
    return nullptr;
}

void CommandLine::refuse(const CLI::ParseError& error, const std::vector<std::string>& arguments) const {
    const Command* command = chosen();
    const CLI::App& app = command ? *command->app : app_;
    const std::string where = command ? command->app->get_name() + ": " : "";
    if (dynamic_cast<const CLI::ExtrasError*>(&error)) {
        // The first argument in the order given that CLI11 took for no option of the command.
        for (const std::string& argument : arguments) {
            if (std::string(error.what()).find(argument) == std::string::npos || argument == app.get_name()) continue;
            if (argument.starts_with("-"))
                throw runner::UsageError(with_suggestion(where + "unknown option '" + argument + "'",
                                                         argument.substr(0, argument.find('=')), option_names(app)));
            throw runner::UsageError(app.get_name() + " takes no argument '" + argument + "'");
        }
    }
    std::string message = error.what();
    // "--cases: At Most 1 required but received 2", in moqsim's words.
    if (message.find("At Most 1 required but received") != std::string::npos)
        message = message.substr(0, message.find(':')) + " is given twice";
    else if (message.find("disallowed flag override") != std::string::npos)
        message = switch_given_a_value("--" + message.substr(0, message.find(' ')), arguments);
    else if (message.find("required") != std::string::npos && message.find("missing") != std::string::npos)
        message = message.substr(0, message.find(':')) + " needs a value";
    throw runner::UsageError(where + message);
}

int CommandLine::run(const runner::Program& program, const std::vector<std::string>& arguments) {
    if (arguments.empty()) throw runner::UsageError("no command (moqsim --help lists them)");
    const std::string& first = arguments.front();
    std::vector<std::string> names;
    for (const Command& command : commands_) names.push_back(command.app->get_name());
    if (!first.starts_with("-") && std::find(names.begin(), names.end(), first) == names.end())
        throw runner::UsageError(with_suggestion("unknown command '" + first + "' (moqsim --help)", first, names));
    std::vector<std::string> reversed(arguments.rbegin(), arguments.rend());  // as CLI11 takes them
    try {
        app_.parse(reversed);
    } catch (const CLI::CallForHelp&) {
        const Command* command = chosen();
        std::fputs((command ? command->app->help("moqsim") : app_.help()).c_str(), stdout);
        return 0;
    } catch (const CLI::ParseError& error) {
        refuse(error, arguments);
    }
    const Command* command = chosen();
    if (!command) throw runner::UsageError("no command (moqsim --help lists them)");
    runner::Given given;
    for (const CLI::Option* option : command->app->get_options()) {
        if (option->count() == 0 || option->get_lnames().empty()) continue;
        const std::string name = option->get_lnames().front();
        if (name == "help") continue;
        if (option->get_expected_max() == 0)
            given.set_switch(name);
        else
            given.set(name, option->results().front());
    }
    for (const std::string& argument : command->positional) given.add_positional(argument);
    return command->run(program, given);
}

}  // namespace moq::cli
