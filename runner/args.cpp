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

void Given::set(std::string name, std::string value) {
    if (values_.contains(name)) throw UsageError("--" + name + " is given twice");
    values_.emplace(std::move(name), std::move(value));
}

std::optional<std::string> Given::value(std::string_view name) const {
    const auto found = values_.find(name);
    if (found == values_.end()) return std::nullopt;
    return found->second;
}

bool Given::has(std::string_view name) const {
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
