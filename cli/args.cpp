#include "cli/args.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <tuple>

namespace moq::cli {

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
    throw UsageError("unknown strategy '" + std::string(text) + "' (fifo, random or pct)");
}

properties::Mix parse_mix_name(std::string_view text) {
    if (auto mix = properties::parse_mix(text)) return *mix;
    throw UsageError("unknown mix '" + std::string(text) + "' (fixed or swarm)");
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

namespace {

// One pair of shard variables, if its total is set.
std::optional<Shard> shard_from(const Environment& variables, const char* total_name, const char* index_name) {
    const auto total = variables(total_name);
    const auto index = variables(index_name);
    if (!total) {
        if (index) throw UsageError(std::string(index_name) + " is set but " + total_name + " is not");
        return std::nullopt;
    }
    Shard shard;
    shard.total = parse_count(*total, total_name, max_shards);
    if (shard.total == 0) throw UsageError(std::string(total_name) + " must be at least 1, not '" + *total + "'");
    if (!index) throw UsageError(std::string(total_name) + " is set but " + index_name + " is not");
    shard.index = parse_count(*index, index_name, UINT64_MAX);
    if (shard.index >= shard.total)
        throw UsageError(std::string(index_name) + " " + *index + " is out of range: " + total_name + " is " + *total +
                         " (indices 0 to " + std::to_string(shard.total - 1) + ")");
    return shard;
}

}  // namespace

Shard shard_from_environment(const Environment& variables) {
    const std::optional<Shard> gtest = shard_from(variables, "GTEST_TOTAL_SHARDS", "GTEST_SHARD_INDEX");
    const std::optional<Shard> test = shard_from(variables, "TEST_TOTAL_SHARDS", "TEST_SHARD_INDEX");
    if (gtest && test && (gtest->index != test->index || gtest->total != test->total))
        throw UsageError("GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS say shard " + std::to_string(gtest->index) + " of " +
                         std::to_string(gtest->total) + " but TEST_SHARD_INDEX/TEST_TOTAL_SHARDS say " +
                         std::to_string(test->index) + " of " + std::to_string(test->total));
    if (gtest) return *gtest;
    if (test) return *test;
    return Shard{};
}

std::uint64_t shard_share(std::uint64_t pairs, const Shard& shard) {
    return pairs / shard.total + (shard.index < pairs % shard.total ? 1 : 0);
}

void acknowledge_shard() {
    for (const char* status : {"GTEST_SHARD_STATUS_FILE", "TEST_SHARD_STATUS_FILE"})
        if (const auto path = environment(status)) std::ofstream(*path).flush();
}

}  // namespace moq::cli
