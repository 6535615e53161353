// The per-site evaluation counters of core/util/mutation.hpp, and the generated mutants'
// (util/schema.hpp). A program of its own: its test site and its table of generated
// mutants must not join those core_tests lists for scripts/mutate to switch.
// In a mutants build every site evaluation counts; in a normal build nothing does. A
// generated mutant's switch counts in every build that has one (only a schemata copy does).
#include <doctest/doctest.h>

#include <cstdint>
#include <iterator>
#include <thread>
#include <vector>

#include "util/mutation.hpp"
#include "util/schema.hpp"

namespace {

constexpr const char* counted_site = "test.counted_site";

// One evaluation of the counted site, as the core writes one.
bool evaluate_counted_site() {
    return MOQ_SITE_EXPLAINED("test.counted_site", gate, "a test's own site, only counted");
}

// A table of two generated mutants, as a schemata copy registers its own.
constexpr moq::mutation::GeneratedMutant test_table[] = {
    {"gen.test/table.cpp:1:1.rel_flip", "test/table.cpp", 1, 1, "rel_flip", "<", "<="},
    {"gen.test/table.cpp:2:1.cond_negate", "test/table.cpp", 2, 1, "cond_negate", "x", "!(x)"},
};
const int test_table_size = moq::mutation::add_generated_mutants(test_table, std::size(test_table));

// What a site evaluated `times` times must report in this build.
std::uint64_t expected(std::uint64_t times) { return moq::mutation::mutants_enabled() ? times : 0; }

constexpr int threads = 4;
constexpr int each = 10000;

// `evaluate` `each` times on each of `threads` threads at once.
template <class Evaluate>
void on_threads(Evaluate evaluate) {
    std::vector<std::thread> workers;
    workers.reserve(threads);
    for (int t = 0; t < threads; ++t)
        workers.emplace_back([&evaluate] {
            for (int i = 0; i < each; ++i) evaluate();
        });
    for (std::thread& worker : workers) worker.join();
}

}  // namespace

TEST_CASE("a_site_evaluated_n_times_reports_n") {
    moq::mutation::reset_evaluations();
    CHECK(moq::mutation::evaluations(counted_site) == 0);
    for (int i = 0; i < 37; ++i) CHECK(evaluate_counted_site());
    CHECK(moq::mutation::evaluations(counted_site) == expected(37));
    evaluate_counted_site();
    CHECK(moq::mutation::evaluations(counted_site) == expected(38));
}

TEST_CASE("a_reset_starts_every_count_again") {
    for (int i = 0; i < 5; ++i) evaluate_counted_site();
    moq::mutation::reset_evaluations();
    CHECK(moq::mutation::evaluations(counted_site) == 0);
    evaluate_counted_site();
    CHECK(moq::mutation::evaluations(counted_site) == expected(1));
}

TEST_CASE("evaluations_from_several_threads_all_count") {
    moq::mutation::reset_evaluations();
    on_threads([] { evaluate_counted_site(); });
    CHECK(moq::mutation::evaluations(counted_site) == expected(std::uint64_t{threads} * each));
}

TEST_CASE("a_switched_off_site_still_counts") {
    if (!moq::mutation::mutants_enabled()) return;  // only a mutants build can switch one off
    moq::mutation::reset_evaluations();
    REQUIRE(moq::mutation::set_active_mutant(counted_site));
    CHECK_FALSE(evaluate_counted_site());
    CHECK(moq::mutation::set_active_mutant(""));
    CHECK(evaluate_counted_site());
    CHECK(moq::mutation::evaluations(counted_site) == 2);
}

TEST_CASE("an_unknown_site_has_no_evaluations") { CHECK(moq::mutation::evaluations("no.such.site") == 0); }

TEST_CASE("a_generated_mutants_switch_counts_only_while_counting_is_on") {
    REQUIRE(test_table_size == 2);
    moq::mutation::reset_evaluations();
    moq::mutation::count_generated_evaluations(false);
    moq::mutation::schema_on(0);
    moq::mutation::count_generated_evaluations(true);
    moq::mutation::schema_on(0);
    CHECK(moq::mutation::generated_evaluation_counts() == std::vector<std::uint64_t>{1, 0});
}

TEST_CASE("a_generated_mutants_switch_counts_each_evaluation_and_only_its_own") {
    REQUIRE(test_table_size == 2);
    moq::mutation::count_generated_evaluations(true);
    moq::mutation::reset_evaluations();
    for (int i = 0; i < 3; ++i) CHECK_FALSE(moq::mutation::schema_on(0));
    CHECK(moq::mutation::generated_evaluation_counts() == std::vector<std::uint64_t>{3, 0});
    REQUIRE(moq::mutation::set_active_mutant("gen.test/table.cpp:2:1.cond_negate"));
    CHECK(moq::mutation::schema_on(1));
    CHECK_FALSE(moq::mutation::schema_on(0));
    CHECK(moq::mutation::set_active_mutant(""));
    CHECK(moq::mutation::generated_evaluation_counts() == std::vector<std::uint64_t>{4, 1});
}

TEST_CASE("a_reset_starts_every_generated_count_again") {
    moq::mutation::count_generated_evaluations(true);
    moq::mutation::schema_on(1);
    moq::mutation::reset_evaluations();
    CHECK(moq::mutation::generated_evaluation_counts() == std::vector<std::uint64_t>{0, 0});
    moq::mutation::schema_on(1);
    CHECK(moq::mutation::generated_evaluation_counts() == std::vector<std::uint64_t>{0, 1});
}

TEST_CASE("generated_evaluations_from_several_threads_all_count") {
    moq::mutation::count_generated_evaluations(true);
    moq::mutation::reset_evaluations();
    on_threads([] { moq::mutation::schema_on(0); });
    CHECK(moq::mutation::generated_evaluation_counts()[0] == std::uint64_t{threads} * each);
}

// No reset and no switch of counting: what the test program's --mutant-coverage must do
// itself (scripts/moqtools/tests/test_mutant_coverage.py runs it after a test that leaves
// counts behind, and reads this test's own line).
TEST_CASE("an_evaluation_counts_for_the_test_that_makes_it") {
    CHECK(evaluate_counted_site());
    CHECK_FALSE(moq::mutation::schema_on(1));
}
