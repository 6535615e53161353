// Every suite for a short sweep, and the round trip of a case through JSON.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "properties/suite.hpp"

using moq::properties::RunSettings;

TEST_CASE("every_suite_passes_a_short_sweep") {
    for (const moq::properties::Suite* suite : moq::properties::suites()) {
        for (std::uint64_t index = 0; index < 200; ++index) {
            const auto generated = suite->generate(1, index);
            const auto outcome = generated->run(RunSettings{});
            const std::string context = std::string(suite->name()) + " case " + std::to_string(index) + ": " +
                                        outcome.message + "\n" + generated->describe();
            INFO(context);
            REQUIRE(outcome.ok);
        }
    }
}

TEST_CASE("every_suite_passes_a_short_swarm_sweep") {
    for (const moq::properties::Suite* suite : moq::properties::suites()) {
        for (std::uint64_t index = 0; index < 100; ++index) {
            const auto generated = suite->generate(1, index, moq::properties::Mix::swarm);
            const auto outcome = generated->run(RunSettings{});
            const std::string context =
                std::string(suite->name()) + " swarm case " + std::to_string(index) + ": " + outcome.message;
            INFO(context);
            REQUIRE(outcome.ok);
        }
    }
}

TEST_CASE("a_swarm_case_keeps_what_the_seed_says") {
    const std::vector<bool> kept{false, true, false};
    const moq::properties::Weights<char> weights{{5, 'a'}, {3, 'b'}, {2, 'c'}};
    const auto chosen = moq::properties::kept_weights(weights, kept);
    REQUIRE(chosen.size() == 1);
    CHECK(chosen.front().second == 'b');
    // None kept keeps every kind: a case always has something to do.
    CHECK(moq::properties::kept_weights(weights, std::vector<bool>(3, false)).size() == 3);
}

TEST_CASE("a_case_is_the_same_after_a_round_trip_through_json") {
    for (const moq::properties::Suite* suite : moq::properties::suites()) {
        const auto generated = suite->generate(3, 57);
        const auto stored = suite->from_json(generated->to_json());
        CHECK(stored->to_json() == generated->to_json());
        CHECK(stored->run(RunSettings{}).digest == generated->run(RunSettings{}).digest);
    }
}

TEST_CASE("the_same_seed_and_index_give_the_same_case") {
    for (const moq::properties::Suite* suite : moq::properties::suites()) {
        CHECK(suite->generate(9, 4)->to_json() == suite->generate(9, 4)->to_json());
        CHECK(suite->generate(9, 4)->to_json() != suite->generate(9, 5)->to_json());
    }
}

TEST_CASE("a_case_gives_the_same_digest_whatever_ran_before_it") {
    for (const moq::properties::Suite* suite : moq::properties::suites()) {
        for (std::uint64_t index : {7u, 31u, 90u}) {
            const auto first = suite->generate(2, index)->run(RunSettings{}).digest;
            for (std::uint64_t other = 0; other < 60; ++other)
                static_cast<void>(suite->generate(5, other)->run(RunSettings{}));
            const std::string context = std::string(suite->name()) + " case " + std::to_string(index);
            INFO(context);
            CHECK(suite->generate(2, index)->run(RunSettings{}).digest == first);
        }
    }
}
