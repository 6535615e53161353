// Command-line and environment input of moqsim, checked: every bad value is a
// `UsageError` with a one-line reason, which main turns into exit status 2.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "properties/swarm.hpp"
#include "sim/seed_range.hpp"
#include "sim/strategy.hpp"

namespace moq::runner {

class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

using sim::SeedRange;

// "7" or "1-4".
SeedRange parse_seed_range(std::string_view text, std::string_view what);
std::uint64_t parse_count(std::string_view text, std::string_view what, std::uint64_t max);
sim::StrategyKind parse_strategy_name(std::string_view text);
// --mix: fixed or swarm (properties/swarm.hpp).
properties::Mix parse_mix_name(std::string_view text);
// The longest --duration: 30 days.
inline constexpr std::uint64_t max_duration_seconds = std::uint64_t{30} * 24 * 3600;
// "90s", "10m" or "2h" in seconds: a whole number from 1 with its unit, at most
// max_duration_seconds.
std::uint64_t parse_duration(std::string_view text, std::string_view what);

// What a command line gave one command: each option's value by its name (without the
// dashes), the switches it named, and the arguments that are no option. moqsim's command
// line (cli/) fills one after CLI11 has checked the syntax; a fuzz target or a test makes
// its own. The runner reads every value through it and checks each with its own words.
class Given {
public:
    // --name value; UsageError when the option is given twice.
    void set(std::string name, std::string value);
    // --name, a switch.
    void set_switch(std::string name) { switches_.push_back(std::move(name)); }
    void add_positional(std::string value) { positional_.push_back(std::move(value)); }

    [[nodiscard]] std::optional<std::string> value(std::string_view name) const;
    [[nodiscard]] bool has(std::string_view name) const;
    [[nodiscard]] const std::vector<std::string>& positional() const { return positional_; }

private:
    std::map<std::string, std::string, std::less<>> values_;
    std::vector<std::string> switches_;
    std::vector<std::string> positional_;
};

// An environment variable, if set and not empty.
std::optional<std::string> environment(const char* name);

// Where the parsers read environment variables from: the process's (`environment`), or
// a fuzz target's or a test's own values. Like `environment`, it gives a value only if the
// variable is set and not empty.
using Environment = std::function<std::optional<std::string>(const std::string& name)>;
Environment process_environment();

// The most cases a sweep runs for one suite and seed (--cases, MOQ_<SUITE>_CASES, and a
// sweep result's "cases").
inline constexpr std::uint64_t max_cases = 100000000;

}  // namespace moq::runner
