// The per-site evaluation counters of core/util/mutation.hpp. A program of its own: its
// test site must not join the sites core_tests lists for scripts/mutate to switch off.
// In a mutants build every evaluation counts; in a normal build nothing does.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstdint>
#include <thread>
#include <vector>

#include "util/mutation.hpp"

namespace {

constexpr const char* counted_site = "test.counted_site";

// One evaluation of the counted site, as the core writes one.
bool evaluate_counted_site() {
    return MOQ_SITE_EXPLAINED("test.counted_site", gate, "a test's own site, only counted");
}

// What a site evaluated `times` times must report in this build.
std::uint64_t expected(std::uint64_t times) { return moq::mutation::mutants_enabled() ? times : 0; }

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
    constexpr int threads = 4;
    constexpr int each = 10000;
    std::vector<std::thread> workers;
    workers.reserve(threads);
    for (int t = 0; t < threads; ++t)
        workers.emplace_back([] {
            for (int i = 0; i < each; ++i) evaluate_counted_site();
        });
    for (std::thread& worker : workers) worker.join();
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
