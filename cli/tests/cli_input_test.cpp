// Unit tests of the CLI's input library (cli/meson.build, moq_cli_input) where a bad-input
// case cannot look: boundaries, and what the fuzz targets take for granted.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <string>

#include "cli/args.hpp"
#include "cli/json_input.hpp"

namespace moq::cli {

TEST_CASE("shard_share counts the pairs a sweep's loop gives the shard") {
    // The loop of cli/sweep.cpp: every total-th pair from the index. Merge refuses a run
    // count past shard_share, so the two must agree.
    for (std::uint64_t total = 1; total <= 7; ++total) {
        for (std::uint64_t pairs = 0; pairs <= 40; ++pairs) {
            std::uint64_t all = 0;
            for (std::uint64_t index = 0; index < total; ++index) {
                std::uint64_t visited = 0;
                for (std::uint64_t ordinal = index; ordinal < pairs; ordinal += total) ++visited;
                CHECK(shard_share(pairs, Shard{index, total}) == visited);
                all += visited;
            }
            CHECK(all == pairs);
        }
    }
}

TEST_CASE("parse_json_input reads 32 levels of nesting and refuses 33") {
    const auto nested = [](int levels) { return std::string(levels, '[') + std::string(levels, ']'); };
    CHECK(parse_json_input(nested(max_json_nesting), "in.json").is_array());
    CHECK_THROWS_WITH_AS(parse_json_input(nested(max_json_nesting + 1), "in.json"),
                         "in.json: JSON nested deeper than 32 levels", UsageError);
    CHECK_THROWS_WITH_AS(parse_json_input("{\"a\":" + nested(max_json_nesting) + "}", "in.json"),
                         "in.json: JSON nested deeper than 32 levels", UsageError);
}

TEST_CASE("parse_json_input names the file of a number past a double's range") {
    CHECK_THROWS_WITH_AS(parse_json_input("[1e400]", "huge.json"),
                         doctest::Contains("huge.json: a number out of range"), UsageError);
    CHECK_THROWS_WITH_AS(parse_json_input("[1", "cut.json"), doctest::Contains("cut.json: not JSON"), UsageError);
}

}  // namespace moq::cli
