// The small scopes (properties/scope.hpp) and their enumeration
// (properties/small_scope.hpp): counts worked out by hand from the declared domains,
// symmetric cases visited once, stable indices, and the corpus's short failures in scope.
#include <doctest/doctest.h>

#include <fstream>
#include <set>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "properties/small_scope.hpp"
#include "properties/suite.hpp"

namespace {

using namespace moq::properties;

const Suite& suite_named(const char* name) {
    const Suite* suite = find_suite(name);
    REQUIRE(suite != nullptr);
    return *suite;
}

// The stored case of a corpus file.
nlohmann::json corpus_case(const std::string& file) {
    std::ifstream in(std::string(MOQ_SOURCE_DIR) + "/corpus/" + file);
    REQUIRE(in.good());
    return nlohmann::json::parse(in)["case"];
}

std::set<std::uint64_t> visited_indices(const Suite& suite, int ops) {
    std::set<std::uint64_t> visited;
    for_each_small_case(suite, ops, [&](const Case&, std::uint64_t index) {
        visited.insert(index);
        return true;
    });
    return visited;
}

nlohmann::json without_seed(nlohmann::json value) {
    value.erase("seed");
    return value;
}

}  // namespace

TEST_CASE("the gate's small cases are its 12 shapes times 10 steps to the power of the length") {
    // Shapes: 3 modes x 4 drives. Steps: write, quiet, target with 0 or 1 (6), notify,
    // poke, yield, wait (4). No symmetry.
    const SmallScopeTotals one = count_small_cases(suite_named("gate"), 1);
    CHECK(one.enumerated == 12 * 10);
    CHECK(one.symmetric == 0);
    CHECK(one.visited == 120);
    const SmallScopeTotals two = count_small_cases(suite_named("gate"), 2);
    CHECK(two.enumerated == 120 + 12 * 10 * 10);
    CHECK(two.visited == 1320);
    // What is counted is what is visited.
    CHECK(visited_indices(suite_named("gate"), 2).size() == 1320);
}

TEST_CASE("the resume suite's copy renaming halves the cases that name a copy") {
    // Shapes: 2 walks x 4 drives. 43 steps, 28 of them naming copy A or B (land and drop
    // of 4 groups, open of 2, serve, finish, kill, drop_taken): the 14 naming B alone
    // are renamings of those naming A.
    const SmallScopeTotals one = count_small_cases(suite_named("resume"), 1);
    CHECK(one.enumerated == 8 * 43);
    CHECK(one.symmetric == 8 * 14);
    CHECK(one.visited == 8 * 29);
    // Two steps: a pair is skipped unless its first copy named is A (or it names none):
    // 15 no-copy steps, 28 naming a copy. Least pairs: none-none 15*15, none-then-A-first
    // 15*14, A-first then anything 14*43.
    const SmallScopeTotals two = count_small_cases(suite_named("resume"), 2);
    CHECK(two.enumerated == one.enumerated + 8 * 43 * 43);
    CHECK(two.visited == one.visited + 8 * (15 * 15 + 15 * 14 + 14 * 43));
    CHECK(visited_indices(suite_named("resume"), 2).size() == two.visited);
}

TEST_CASE("the group suite's reader renaming leaves one order of each set of readers") {
    // Per drive (3): [mixed], [mixed follower], [finished] and [object] with 20 steps (13
    // without a reader, 7 per reader); [frame, mixed] in both orders with 27; the G4
    // followers in 6 orders with 34.
    const SmallScopeTotals one = count_small_cases(suite_named("group"), 1);
    CHECK(one.enumerated == 3 * (4 * 20 + 2 * 27 + 6 * 34));
    CHECK(one.visited == 3 * (4 * 20 + 27 + 34));
    CHECK(one.symmetric == one.enumerated - one.visited);
}

TEST_CASE("two cases the same up to a declared symmetry give one visit") {
    const Suite& resume = suite_named("resume");
    const nlohmann::json on_a = {{"walk", "arrival"},
                                 {"drive", "woken"},
                                 {"seed", 0u},
                                 {"steps", {{"land", 0u, 1u, 0u}, {"serve", 0u, 0u, 0u}}}};
    nlohmann::json on_b = on_a;
    on_b["steps"] = {{"land", 1u, 1u, 0u}, {"serve", 1u, 0u, 0u}};
    const auto a = find_small_case(resume, on_a);
    const auto b = find_small_case(resume, on_b);
    REQUIRE(a);
    REQUIRE(b);
    CHECK(a->index != b->index);
    CHECK(a->visited_as == b->visited_as);
    const std::set<std::uint64_t> visited = visited_indices(resume, 2);
    CHECK(visited.count(a->visited_as) == 1);
    CHECK(visited.count(a->index == a->visited_as ? b->index : a->index) == 0);
    // A case naming both copies is not its own renaming: land(A) land(B) and land(B)
    // land(A) are one class.
    nlohmann::json crossed = on_a;
    crossed["steps"] = {{"land", 0u, 1u, 0u}, {"land", 1u, 1u, 0u}};
    nlohmann::json swapped = on_a;
    swapped["steps"] = {{"land", 1u, 1u, 0u}, {"land", 0u, 1u, 0u}};
    CHECK(find_small_case(resume, crossed)->visited_as == find_small_case(resume, swapped)->visited_as);

    // Readers swapped, with the steps that name them.
    const Suite& group = suite_named("group");
    const nlohmann::json frame{{"way", "frame"}, {"batch", 1u}, {"end", nullptr}, {"skip", 0u}};
    const nlohmann::json mixed{{"way", "mixed"}, {"batch", 1u}, {"end", nullptr}, {"skip", 0u}};
    const nlohmann::json first = {{"readers", {frame, mixed}},
                                  {"drive", "inline"},
                                  {"seed", 0u},
                                  {"steps", {{"poke", 0u, 0u}, {"frame", 0u, 1u}}}};
    const nlohmann::json second = {{"readers", {mixed, frame}},
                                   {"drive", "inline"},
                                   {"seed", 0u},
                                   {"steps", {{"poke", 1u, 0u}, {"frame", 0u, 1u}}}};
    REQUIRE(find_small_case(group, first));
    REQUIRE(find_small_case(group, second));
    CHECK(find_small_case(group, first)->visited_as == find_small_case(group, second)->visited_as);
    CHECK(find_small_case(group, first)->index != find_small_case(group, second)->index);
}

TEST_CASE("a small case's index is the same case for every --ops and every way of finding it") {
    for (const char* name : {"gate", "resume", "waiter"}) {
        const Suite& suite = suite_named(name);
        std::uint64_t visits = 0;
        for_each_small_case(suite, 2, [&](const Case& value, std::uint64_t index) {
            const nlohmann::json json = value.to_json();
            CHECK(small_case(suite, 2, index)->to_json() == json);
            CHECK(small_case(suite, 4, index)->to_json() == json);
            const auto place = find_small_case(suite, json);
            REQUIRE(place);
            CHECK(place->index == index);
            CHECK(place->visited_as == index);
            ++visits;
            return true;
        });
        CHECK(visits == count_small_cases(suite, 2).visited);
    }
    // The first case of all: the first shape's first step.
    CHECK(small_case(suite_named("gate"), 1, 0)->to_json() ==
          nlohmann::json({{"mode", "idle"},
                          {"drive", "woken"},
                          {"seed", 0u},
                          {"steps", nlohmann::json::array({nlohmann::json::array({"write", 0u})})}}));
    CHECK_THROWS_AS(static_cast<void>(small_case(suite_named("gate"), 1, 120)), std::invalid_argument);
    // A visit that says stop stops.
    std::uint64_t seen = 0;
    const SmallScopeTotals stopped =
        for_each_small_case(suite_named("gate"), 2, [&](const Case&, std::uint64_t) { return ++seen < 5; });
    CHECK(seen == 5);
    CHECK(stopped.visited == 5);
}

TEST_CASE("the corpus's short failures are small cases") {
    // G4 of the long sweeps: poke(r0) open(1) serve drop with three followers, inline.
    const struct {
        const char* suite;
        const char* file;
        int operations;
    } stored[] = {
        {"group", "group_a_follower_opens_a_frame_its_replica_still_holds.json", 4},
        {"gate", "gate_a_post_still_delivering_has_not_woken_the_reader.json", 5},
        {"track", "track_aborted_group_is_skipped.json", 2},
        {"track", "track_sequence_end_after_aborted_groups.json", 3},
        {"resume", "resume_route_registration.json", 3},
    };
    for (const auto& one : stored) {
        CAPTURE(one.file);
        const Suite& suite = suite_named(one.suite);
        const nlohmann::json value = corpus_case(one.file);
        const auto place = find_small_case(suite, value);
        REQUIRE(place);
        CHECK(place->operations == one.operations);
        // The case at its index is the stored one but for the seed, and the case its
        // class is visited as is the least of that class.
        CHECK(without_seed(small_case(suite, one.operations, place->index)->to_json()) ==
              without_seed(suite.from_json(value)->to_json()));
        const auto least = find_small_case(suite, small_case(suite, one.operations, place->visited_as)->to_json());
        REQUIRE(least);
        CHECK(least->visited_as == place->visited_as);
    }
    // One outside: a reader that skips to 1 is not among the group's small readers.
    CHECK_FALSE(
        find_small_case(suite_named("group"), corpus_case("group_a_follower_ends_on_the_copy_it_recovered_to.json")));
}

TEST_CASE("every suite's scope is closed under its renamings, and --ops is bounded") {
    for (const Suite* suite : suites()) {
        CAPTURE(suite->name());
        CHECK_NOTHROW(static_cast<void>(count_small_cases(*suite, 1)));
        CHECK_THROWS_AS(static_cast<void>(count_small_cases(*suite, 0)), std::invalid_argument);
        CHECK_THROWS_AS(static_cast<void>(count_small_cases(*suite, max_small_ops + 1)), std::invalid_argument);
    }
}
