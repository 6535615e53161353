#include "runner/args.hpp"

#include <algorithm>
#include <cstdlib>
#include <tuple>

namespace moq::runner {

SeedRange parse_seed_range(std::string_view text, std::string_view what) {
    const sim::ParsedSeedRange parsed = sim::parse_seed_range(text);
    if (parsed.range) return *parsed.range;
    const std::string quoted = "'" + std::string(text) + "'";
    switch (parsed.problem) {
        case sim::SeedRangeProblem::backwards:
            throw UsageError(std::string(what) + " range " + quoted + " runs backwards");
        case sim::SeedRangeProblem::too_wide: throw UsageError(std::string(what) + " range " + quoted + " is too wide");
        case sim::SeedRangeProblem::not_a_range: break;
    }
    throw UsageError(std::string(what) + " takes a seed or a range like 1-4, not " + quoted);
}

std::uint64_t parse_count(std::string_view text, std::string_view what, std::uint64_t max) {
    const auto value = sim::parse_whole_number(text);
    if (!value || *value > max)
        throw UsageError(std::string(what) + " takes a whole number up to " + std::to_string(max) + ", not '" +
                         std::string(text) + "'");
    return *value;
}

sim::StrategyKind parse_strategy_name(std::string_view text) {
    if (auto kind = sim::parse_strategy(text)) return *kind;
    throw UsageError("unknown strategy '" + std::string(text) + "' (" + sim::strategy_names() + ")");
}

properties::Mix parse_mix_name(std::string_view text) {
    if (auto mix = properties::parse_mix(text)) return *mix;
    throw UsageError("unknown mix '" + std::string(text) + "' (fixed or swarm)");
}

std::uint64_t parse_duration(std::string_view text, std::string_view what) {
    const auto refuse = [&] {
        return UsageError(std::string(what) + " takes a whole number of seconds, minutes or hours up to " +
                          std::to_string(max_duration_seconds / 3600) + "h (90s, 10m, 2h), not '" + std::string(text) +
                          "'");
    };
    if (text.empty()) throw refuse();
    std::uint64_t unit = 0;
    switch (text.back()) {
        case 's': unit = 1; break;
        case 'm': unit = 60; break;
        case 'h': unit = 3600; break;
        default: throw refuse();
    }
    const auto number = sim::parse_whole_number(text.substr(0, text.size() - 1));
    if (!number || *number == 0 || *number > max_duration_seconds / unit) throw refuse();
    return *number * unit;
}

Flags::Flags(const std::vector<std::string>& arguments, const std::vector<std::string_view>& with_value,
             const std::vector<std::string_view>& switches) {
    for (std::size_t i = 0; i < arguments.size(); ++i) {
        const std::string_view arg = arguments[i];
        if (!arg.starts_with("--")) {
            positional_.emplace_back(arg);
            continue;
        }
        std::string name(arg.substr(2));
        std::optional<std::string> inline_value;
        if (const auto equals = name.find('='); equals != std::string::npos) {
            inline_value = name.substr(equals + 1);
            name.resize(equals);
        }
        const bool takes_value = std::find(with_value.begin(), with_value.end(), name) != with_value.end();
        const bool is_switch = std::find(switches.begin(), switches.end(), name) != switches.end();
        if (takes_value) {
            if (inline_value) {
                values_.emplace(name, *inline_value);
            } else if (i + 1 < arguments.size()) {
                values_.emplace(name, arguments[++i]);
            } else {
                throw UsageError("--" + name + " needs a value");
            }
        } else if (is_switch && !inline_value) {
            switches_.push_back(name);
        } else {
            throw UsageError("unknown option '" + std::string(arg) + "'");
        }
    }
}

std::optional<std::string> Flags::value(std::string_view name) const {
    const auto [begin, end] = values_.equal_range(name);
    if (begin == end) return std::nullopt;
    if (std::next(begin) != end) throw UsageError("--" + std::string(name) + " is given twice");
    return begin->second;
}

std::vector<std::string> Flags::values(std::string_view name) const {
    std::vector<std::string> found;
    const auto [begin, end] = values_.equal_range(name);
    for (auto it = begin; it != end; ++it) found.push_back(it->second);
    return found;
}

bool Flags::has(std::string_view name) const {
    return std::find(switches_.begin(), switches_.end(), name) != switches_.end();
}

std::optional<std::string> environment(const char* name) {
    const char* value = std::getenv(name);
    if (!value || !*value) return std::nullopt;
    return std::string(value);
}

Environment process_environment() {
    return [](const std::string& name) { return environment(name.c_str()); };
}

}  // namespace moq::runner
