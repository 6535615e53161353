// A command's arguments, as the runner reads each command's options from what its
// command line gave (runner/options.hpp), and every argument as a seed range and a count
// (sim/seed_range.hpp, which sim_digest and the benchmarks read numbers with too). The
// input is the arguments separated by NUL bytes (as /proc/PID/cmdline holds them), the
// command first; "--NAME=VALUE" and "--NAME VALUE" give an option, "--NAME" alone a switch,
// anything else an argument (moqsim's CLI11 checks that syntax first, and is no code of
// ours to fuzz). A refusal (UsageError) is the answer to bad input. A finding: any other
// exception, a crash, a sanitizer report, a hang; options that break what a command
// relies on (fuzz/sweep_options.hpp for sweep); a number or seed range that prints back
// as another.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz/support.hpp"
#include "fuzz/sweep_options.hpp"
#include "runner/args.hpp"
#include "runner/options.hpp"
#include "sim/seed_range.hpp"

using moq::fuzz::require;

namespace {

// What the one parser of numbers promises: only digits read, and they print back as
// the same number; a range is a number or two joined by a dash.
void check_numbers(const std::string& text) {
    if (const auto number = moq::sim::parse_whole_number(text)) {
        require(std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }),
                "a number read from more than digits");
        require(moq::sim::parse_whole_number(std::to_string(*number)) == number,
                "a number printed back reads as another");
    }
    const moq::sim::ParsedSeedRange parsed = moq::sim::parse_seed_range(text);
    if (parsed.range) {
        moq::fuzz::check_seed_range(*parsed.range);
        require(text.find_first_not_of("0123456789-") == std::string::npos, "a seed range read from more than digits");
    }
}

// What a command line of these arguments gives the runner.
moq::runner::Given given_of(const std::vector<std::string>& arguments) {
    moq::runner::Given given;
    for (std::size_t i = 0; i < arguments.size(); ++i) {
        const std::string& argument = arguments[i];
        if (!argument.starts_with("--")) {
            given.add_positional(argument);
        } else if (const auto equals = argument.find('='); equals != std::string::npos) {
            given.set(argument.substr(2, equals - 2), argument.substr(equals + 1));
        } else if (i + 1 < arguments.size() && !arguments[i + 1].starts_with("--")) {
            given.set(argument.substr(2), arguments[++i]);
        } else {
            given.set_switch(argument.substr(2));
        }
    }
    return given;
}

void parse_command(const std::string& command, const std::vector<std::string>& listed) {
    const moq::runner::Given arguments = given_of(listed);
    const auto no_environment = [](const std::string&) { return std::optional<std::string>(); };
    if (command == "sweep") {
        moq::fuzz::check_sweep_options(moq::runner::parse_sweep_options(arguments, no_environment));
    } else if (command == "replay") {
        const moq::runner::ReplayOptions options = moq::runner::parse_replay_options(arguments);
        require(int{options.file.has_value()} + int{options.suite != nullptr} == 1,
                "a replay of more or fewer than one of a file and a suite");
        require(!options.trace_format || options.trace_path, "a trace format without a trace");
    } else if (command == "explore") {
        const moq::runner::ExploreOptions options = moq::runner::parse_explore_options(arguments, no_environment);
        require(options.suite != nullptr || options.case_file.has_value(), "an exploration of no suite and no file");
        require(!options.max_schedules || *options.max_schedules >= 1, "a budget of no schedule");
        require(options.split_depth <= moq::runner::max_split_depth, "a split depth past the limit");
        require(!options.ops || options.split_depth == 4, "a split depth with small cases");
        require(options.bound <= moq::runner::max_bound, "a bound past the limit");
        require(!options.budget_seconds || *options.budget_seconds >= 1, "a budget of no time");
    } else if (command == "corpus") {
        require(!moq::runner::parse_corpus_options(arguments).paths.empty(), "a corpus replay of nothing");
    } else if (command == "merge") {
        require(!moq::runner::parse_merge_options(arguments).files.empty(), "a merge of nothing");
    } else if (command == "trace-diff") {
        const moq::runner::TraceDiffOptions options = moq::runner::parse_trace_diff_options(arguments);
        require(listed.size() == 2 && options.first == listed[0] && options.second == listed[1],
                "trace-diff reads other than its two arguments as its traces");
    } else if (command == "list") {
        const moq::runner::ListOptions options = moq::runner::parse_list_options(arguments);
        require(options.suites || options.strategies || options.sites, "a list of nothing");
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::vector<std::string> arguments = moq::fuzz::split(moq::fuzz::as_text(data, size), std::string_view("\0", 1));
    for (const std::string& argument : arguments) check_numbers(argument);
    const std::string command = arguments.front();
    arguments.erase(arguments.begin());
    try {
        parse_command(command, arguments);
    } catch (const moq::runner::UsageError&) {}
    return 0;
}
