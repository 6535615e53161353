// Every suite for a short sweep, and the round trip of a case through JSON.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "properties/suite.hpp"
#include "sim/trace.hpp"

using moq::properties::RunSettings;

TEST_CASE("the_registry_holds_each_listed_suite_once_under_its_file_name") {
    const auto& names = moq::properties::suite_file_names();
    const auto& all = moq::properties::suites();
    REQUIRE(all.size() == names.size());
    for (std::size_t i = 0; i < all.size(); ++i) {
        CHECK(all[i]->name() == names[i]);
        CHECK(moq::properties::find_suite(names[i]) == all[i]);
    }
}

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

namespace {

// The resume case `poke land(A,<sequence>) serve(A)`, with a trace kept.
moq::properties::CaseOutcome poke_land_serve(std::uint64_t sequence) {
    const moq::properties::Suite* resume = moq::properties::find_suite("resume");
    REQUIRE(resume != nullptr);
    const nlohmann::json steps = nlohmann::json::array({nlohmann::json::array({"poke", 0u, 0u, 0u}),
                                                        nlohmann::json::array({"land", 0u, sequence, 0u}),
                                                        nlohmann::json::array({"serve", 0u, 0u, 0u})});
    const auto value =
        resume->from_json({{"steps", steps}, {"walk", "arrival"}, {"drive", "woken"}, {"seed", std::uint64_t{630761}}});
    return value->run(RunSettings{moq::sim::StrategyKind::random, true});
}

std::vector<moq::sim::EventKind> kinds(const std::vector<moq::sim::TraceEntry>& entries) {
    std::vector<moq::sim::EventKind> found;
    found.reserve(entries.size());
    for (const moq::sim::TraceEntry& entry : entries) found.push_back(entry.kind);
    return found;
}

std::vector<std::int64_t> groups_handed_out(const std::vector<moq::sim::TraceEntry>& entries) {
    std::vector<std::int64_t> sequences;
    for (const moq::sim::TraceEntry& entry : entries)
        if (entry.kind == moq::sim::EventKind::answer && entry.name == "group" &&
            entry.code == static_cast<std::uint8_t>(moq::sim::AnswerKind::item))
            sequences.push_back(entry.values[moq::sim::answer_sequence]);
    return sequences;
}

}  // namespace

TEST_CASE("two_cases_that_differ_only_in_a_groups_sequence_give_different_digests") {
    const auto two = poke_land_serve(2);
    const auto zero = poke_land_serve(0);
    REQUIRE(two.ok);
    REQUIRE(zero.ok);
    // The same schedule, event by event: only the values differ.
    REQUIRE(kinds(two.trace) == kinds(zero.trace));
    CHECK(groups_handed_out(two.trace) == std::vector<std::int64_t>{2});
    CHECK(groups_handed_out(zero.trace) == std::vector<std::int64_t>{0});
    CHECK(two.digest != zero.digest);
    CHECK(two.answers_digest != zero.answers_digest);
    // The same case twice: the same digests.
    CHECK(poke_land_serve(2).digest == two.digest);
    CHECK(poke_land_serve(2).answers_digest == two.answers_digest);
}
