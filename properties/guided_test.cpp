// The guided search's input (properties/guided.hpp): what it decodes to, how its bytes
// answer a run's decisions, and that every mutation is again a case its suite reads.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "properties/explore.hpp"
#include "properties/guided.hpp"

namespace {

using moq::properties::guided_decode;

// A libFuzzer-like byte mutator for the tests: one byte changed, or one added.
std::size_t change_one_byte(std::uint8_t* data, std::size_t size, std::size_t capacity) {
    static std::mt19937 random(7);
    if (size < capacity && (random() & 1) != 0) {
        data[size] = static_cast<std::uint8_t>(random());
        return size + 1;
    }
    if (size > 0) data[random() % size] ^= static_cast<std::uint8_t>(1 + random() % 255);
    return size;
}

}  // namespace

TEST_CASE("a_guided_input_reads_back_as_the_case_and_decisions_it_was_made_of") {
    for (const moq::properties::Suite* suite : moq::properties::suites()) {
        CAPTURE(suite->name());
        const auto value = suite->generate(3, 11);
        const std::vector<std::uint8_t> decisions{0, 1, 2, 255, 10};
        const std::string bytes = moq::properties::guided_encode(*suite, *value, decisions);
        const auto input = guided_decode(bytes);
        REQUIRE(input.has_value());
        CHECK(input->suite == suite);
        CHECK(input->value->to_json() == value->to_json());
        CHECK(input->decisions == decisions);
    }
}

TEST_CASE("bytes_that_are_no_case_of_a_suite_decode_to_nothing") {
    CHECK_FALSE(guided_decode("").has_value());
    CHECK_FALSE(guided_decode("gate").has_value());
    CHECK_FALSE(guided_decode("gate\n{}").has_value());
    CHECK_FALSE(guided_decode("nosuite\n{\"steps\":[]}\n").has_value());
    CHECK_FALSE(guided_decode("gate\n{not json\n").has_value());
    CHECK_FALSE(guided_decode("gate\n[1,2]\n").has_value());
    CHECK_FALSE(guided_decode("track\n{\"steps\":[[\"no_such_operation\",0]]}\n").has_value());
}

TEST_CASE("each_byte_answers_one_decision_as_the_random_strategy_draws") {
    moq::sim::DecisionPoint pick;
    pick.kind = moq::sim::DecisionKind::pick;
    pick.options = 3;
    CHECK(moq::properties::ByteDecider::answer(5, pick) == 2);  // uniform: 5 % 3
    CHECK(moq::properties::ByteDecider::answer(4, pick) == 1);
    moq::sim::DecisionPoint preempt;
    preempt.kind = moq::sim::DecisionKind::preempt;
    preempt.options = 2;
    preempt.fallback = 0;
    preempt.costly = true;
    CHECK(moq::properties::ByteDecider::answer(63, preempt) == 1);  // a quarter of the bytes switch
    CHECK(moq::properties::ByteDecider::answer(64, preempt) == 0);
    moq::sim::DecisionPoint fault;
    fault.kind = moq::sim::DecisionKind::spurious_poll;
    fault.options = 4;
    fault.fallback = 0;
    fault.costly = true;
    CHECK(moq::properties::ByteDecider::answer(31, fault) == 2);  // an eighth: 1 + 31 % 3
    CHECK(moq::properties::ByteDecider::answer(32, fault) == 0);
    // Off the default, a costly choice never lands on it.
    for (unsigned byte = 0; byte < 32; ++byte)
        CHECK(moq::properties::ByteDecider::answer(static_cast<std::uint8_t>(byte), fault) != 0);
}

TEST_CASE("the_bytes_answer_first_and_the_seeded_tail_after_them") {
    const std::vector<std::uint8_t> bytes{0, 255};
    moq::sim::DecisionPoint point;
    point.kind = moq::sim::DecisionKind::preempt;
    point.options = 2;
    point.costly = true;
    std::vector<std::uint32_t> first;
    std::vector<std::uint32_t> again;
    std::vector<std::uint32_t> other;
    moq::properties::ByteDecider one(bytes, 42);
    moq::properties::ByteDecider two(bytes, 42);
    moq::properties::ByteDecider three(bytes, 43);
    for (int i = 0; i < 200; ++i) {
        first.push_back(one.choose(point));
        again.push_back(two.choose(point));
        other.push_back(three.choose(point));
    }
    CHECK(first[0] == 1);
    CHECK(first[1] == 0);
    CHECK(first == again);  // the same seed, the same tail
    CHECK(first != other);
    const auto switches = std::count(first.begin() + 2, first.end(), 1u);
    CHECK(switches > 20);  // about a quarter of 198
    CHECK(switches < 80);
}

TEST_CASE("bytes_equal_to_the_tail_leave_the_schedule_as_it_was") {
    // Each tail byte is drawn from its position: writing it out moves nothing after it.
    const std::vector<std::uint8_t> none;
    std::vector<std::uint8_t> written;
    for (std::size_t at = 0; at < 5; ++at) written.push_back(moq::properties::tail_byte(77, at));
    moq::properties::ByteDecider bare(none, 77);
    moq::properties::ByteDecider spelled(written, 77);
    moq::sim::DecisionPoint point;
    point.kind = moq::sim::DecisionKind::pick;
    point.options = 7;
    for (int i = 0; i < 40; ++i) CHECK(bare.choose(point) == spelled.choose(point));
}

TEST_CASE("a_guided_run_replays_from_its_recorded_decisions_to_the_same_digest") {
    std::mt19937_64 random(5);
    for (const moq::properties::Suite* suite : moq::properties::suites()) {
        CAPTURE(suite->name());
        auto input = guided_decode(moq::properties::guided_fresh(*suite, random));
        REQUIRE(input.has_value());
        for (int i = 0; i < 64; ++i) input->decisions.push_back(static_cast<std::uint8_t>(random()));
        const moq::properties::CaseOutcome run = moq::properties::guided_run(*input);
        const moq::properties::DecidedRun again = moq::properties::run_decisions(*input->value, run.decisions);
        CHECK(again.followed);
        CHECK(again.outcome.digest == run.digest);
        CHECK(again.outcome.ok == run.ok);
    }
}

TEST_CASE("every_mutation_and_cross_over_is_a_case_of_the_same_suite_within_the_size") {
    std::mt19937_64 random(9);
    constexpr std::size_t max_size = 2048;
    for (const moq::properties::Suite* suite : moq::properties::suites()) {
        CAPTURE(suite->name());
        std::string bytes = moq::properties::guided_fresh(*suite, random);
        std::string other = moq::properties::guided_fresh(*suite, random);
        std::set<std::string> seen{bytes};
        for (int i = 0; i < 150; ++i) {
            const std::string next = moq::properties::guided_mutate(*suite, bytes, max_size, random, change_one_byte);
            CHECK(next.size() <= max_size);
            const auto input = guided_decode(next);
            REQUIRE(input.has_value());
            CHECK(input->suite == suite);
            seen.insert(next);
            const std::string child = moq::properties::guided_cross(*suite, next, other, max_size, random);
            const auto crossed = guided_decode(child);
            REQUIRE(crossed.has_value());
            CHECK(crossed->suite == suite);
            other = bytes;
            bytes = next;
        }
        // The mutations move: most give an input not seen before.
        CHECK(seen.size() > 100);
    }
}

TEST_CASE("bytes_of_another_suite_or_none_are_replaced_by_a_fresh_case") {
    std::mt19937_64 random(1);
    const moq::properties::Suite* gate = moq::properties::find_suite("gate");
    const moq::properties::Suite* track = moq::properties::find_suite("track");
    REQUIRE(gate);
    REQUIRE(track);
    for (const std::string& given : {std::string("garbage"), moq::properties::guided_fresh(*track, random)}) {
        const auto input = guided_decode(moq::properties::guided_mutate(*gate, given, 4096, random, change_one_byte));
        REQUIRE(input.has_value());
        CHECK(input->suite == gate);
    }
}
