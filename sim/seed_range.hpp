// Seeds and counts as typed on a command line: the one parser behind moqsim's --seeds and
// MOQ_SEED, sim_digest's --seeds and the benchmarks' counts. Header only, so a program
// that links no simulator (the idle-export benchmark) reads numbers the same way.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string_view>
#include <system_error>

namespace moq::sim {

// The whole of `text` as a decimal: "12x", "-1" and "" are not numbers.
inline std::optional<std::uint64_t> parse_whole_number(std::string_view text) {
    std::uint64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
}

struct SeedRange {
    std::uint64_t first = 1;
    std::uint64_t last = 1;
    [[nodiscard]] std::uint64_t count() const { return last - first + 1; }
};

// Why a seed range was refused, to finish a sentence that names the input.
enum class SeedRangeProblem { not_a_range, backwards, too_wide };

// A range is at most this many seeds: more would run for days.
inline constexpr std::uint64_t max_seed_range = 1000000;

struct ParsedSeedRange {
    std::optional<SeedRange> range;
    SeedRangeProblem problem = SeedRangeProblem::not_a_range;
};

// "7" or "1-4".
inline ParsedSeedRange parse_seed_range(std::string_view text) {
    const auto dash = text.find('-');
    const auto first = parse_whole_number(text.substr(0, dash));
    const auto last = dash == std::string_view::npos ? first : parse_whole_number(text.substr(dash + 1));
    if (!first || !last) return {std::nullopt, SeedRangeProblem::not_a_range};
    if (*last < *first) return {std::nullopt, SeedRangeProblem::backwards};
    if (*last - *first >= max_seed_range) return {std::nullopt, SeedRangeProblem::too_wide};
    return {SeedRange{*first, *last}, SeedRangeProblem::not_a_range};
}

}  // namespace moq::sim
