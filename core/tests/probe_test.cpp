// The probe registry of core/util/probe.hpp. A program of its own, like the site counters'
// test: its test probes must not join the probes moqsim lists and sweeps count.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <thread>
#include <vector>

#include "util/probe.hpp"

namespace {

int conditions_evaluated = 0;

[[maybe_unused]] bool counted_condition(bool value) {  // named only, in a build without probes
    ++conditions_evaluated;
    return value;
}

void take_rare_path() { MOQ_PROBE("test.rare_path"); }
void reach_state(bool reached) { MOQ_SOMETIMES("test.state", counted_condition(reached)); }
// One name at two places: its hits are their sum.
void first_end() { MOQ_PROBE("test.two_places"); }
void second_end() { MOQ_PROBE("test.two_places"); }

std::uint64_t expected(std::uint64_t times) { return moq::probe::probes_enabled() ? times : 0; }

}  // namespace

TEST_CASE("every_probe_registers_once_by_name_with_its_kind_and_place") {
    const std::vector<moq::probe::Probe> all = moq::probe::probes();
    REQUIRE(all.size() == 3);
    CHECK(std::is_sorted(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.name < b.name; }));
    CHECK(all[0].name == "test.rare_path");
    CHECK(all[0].kind == moq::probe::Kind::path);
    CHECK(all[0].file == "core/tests/probe_test.cpp");
    CHECK(all[0].line == 23);
    CHECK(all[1].name == "test.state");
    CHECK(all[1].kind == moq::probe::Kind::state);
    CHECK(all[2].name == "test.two_places");
    CHECK(moq::probe::kind_name(moq::probe::Kind::path) == "path");
    CHECK(moq::probe::kind_name(moq::probe::Kind::state) == "state");
}

TEST_CASE("a_probe_taken_n_times_reports_n_until_reset") {
    moq::probe::reset_hits();
    for (int i = 0; i < 7; ++i) take_rare_path();
    CHECK(moq::probe::hits("test.rare_path") == expected(7));
    CHECK(moq::probe::hits("test.state") == 0);
    CHECK(moq::probe::hits("no.such.probe") == 0);
    const std::vector<std::uint64_t> counts = moq::probe::hit_counts();
    REQUIRE(counts.size() == 3);
    CHECK(counts[0] == expected(7));
    moq::probe::reset_hits();
    CHECK(moq::probe::hits("test.rare_path") == 0);
}

TEST_CASE("a_sometimes_counts_only_when_its_condition_holds_and_is_evaluated_only_where_probes_count") {
    moq::probe::reset_hits();
    conditions_evaluated = 0;
    reach_state(false);
    reach_state(true);
    reach_state(true);
    CHECK(moq::probe::hits("test.state") == expected(2));
    CHECK(conditions_evaluated == static_cast<int>(expected(3)));
}

TEST_CASE("a_name_at_two_places_sums_their_hits") {
    moq::probe::reset_hits();
    first_end();
    second_end();
    second_end();
    CHECK(moq::probe::hits("test.two_places") == expected(3));
}

TEST_CASE("hits_from_many_threads_are_all_counted") {
    moq::probe::reset_hits();
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([] {
            for (int i = 0; i < 10000; ++i) take_rare_path();
        });
    for (std::thread& thread : threads) thread.join();
    CHECK(moq::probe::hits("test.rare_path") == expected(40000));
}
