// The main of the unit test programs (core_tests, site_evaluations_test). `--list-sites`
// prints every mutation site linked into it and `--list-generated` every generated mutant
// of a schemata build (one JSON object a line) for scripts/mutate. `--mutant-coverage FILE` (a mutants build) runs the
// tests and writes, a line a test case, the sites and generated mutants it evaluated and its time:
//   {"test": "...", "file": "core/tests/x.cpp", "seconds": 0.01,
//    "sites": {"group.read.register": 3}, "generated": {"gen.model/group.cpp:44:28.rel_flip": 9}}
// scripts/mutate runs each mutant against only the tests that reach it. Anything else is
// doctest's.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

#include "util/json_quote.hpp"
#include "util/mutation.hpp"

namespace {

// This program's name, for its messages.
const char* program_name = "core_tests";  // NOLINT(cppcoreguidelines-avoid-non-const-global-variables)
// Where --mutant-coverage writes; empty when not asked.
std::string coverage_path;   // NOLINT(cert-err58-cpp): set once in main, before any test
std::string coverage_lines;  // NOLINT(cert-err58-cpp)

// A doctest listener: between a test case's start and end, the counters hold its own
// evaluations.
struct MutantCoverage : doctest::IReporter {
    explicit MutantCoverage(const doctest::ContextOptions& /*options*/) {}
    void report_query(const doctest::QueryData& /*data*/) override {}
    void test_run_start() override {
        if (coverage_path.empty()) return;
        // What ran before the first test (static initialisation) may be what any test
        // reads: it counts for every test.
        before_tests_sites_ = moq::mutation::evaluation_counts();
        before_tests_generated_ = moq::mutation::generated_evaluation_counts();
    }
    void test_run_end(const doctest::TestRunStats& /*stats*/) override {
        if (coverage_path.empty()) return;
        // Written whole or not at all: a reader never sees half a file.
        const std::string temporary = coverage_path + ".partial";
        {
            std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
            out << coverage_lines;
            if (!out.flush()) {
                std::fprintf(stderr, "%s: cannot write %s\n", program_name, coverage_path.c_str());
                return;
            }
        }
        std::error_code error;
        std::filesystem::rename(temporary, coverage_path, error);
        if (error) std::fprintf(stderr, "%s: cannot write %s\n", program_name, coverage_path.c_str());
    }
    void test_case_start(const doctest::TestCaseData& data) override {
        if (coverage_path.empty()) return;
        current_ = &data;
        moq::mutation::reset_evaluations();
    }
    void test_case_reenter(const doctest::TestCaseData& /*data*/) override {}
    void test_case_end(const doctest::CurrentTestCaseStats& stats) override {
        if (coverage_path.empty() || !current_) return;
        using moq::util::json_quote;
        std::string line = "{\"test\":" + json_quote(current_->m_name) +
                           ",\"file\":" + json_quote(moq::mutation::project_relative(current_->m_file.c_str())) +
                           ",\"seconds\":" + std::to_string(stats.seconds) + ",\"sites\":{";
        const std::vector<moq::mutation::Site> sites = moq::mutation::sites();
        const std::vector<std::uint64_t> site_counts =
            with_before_tests(moq::mutation::evaluation_counts(), before_tests_sites_);
        bool first = true;
        for (std::size_t i = 0; i < sites.size() && i < site_counts.size(); ++i) {
            if (site_counts[i] == 0) continue;
            line += (first ? "" : ",") + json_quote(sites[i].name) + ":" + std::to_string(site_counts[i]);
            first = false;
        }
        line += "},\"generated\":{";
        const std::vector<moq::mutation::GeneratedMutant> table = moq::mutation::generated_mutants();
        const std::vector<std::uint64_t> counts =
            with_before_tests(moq::mutation::generated_evaluation_counts(), before_tests_generated_);
        first = true;
        for (std::size_t i = 0; i < table.size() && i < counts.size(); ++i) {
            if (counts[i] == 0) continue;
            line += (first ? "" : ",") + json_quote(table[i].id) + ":" + std::to_string(counts[i]);
            first = false;
        }
        coverage_lines += line + "}}\n";
        current_ = nullptr;
    }
    void test_case_exception(const doctest::TestCaseException& /*data*/) override {}
    void subcase_start(const doctest::SubcaseSignature& /*signature*/) override {}
    void subcase_end() override {}
    void log_assert(const doctest::AssertData& /*data*/) override {}
    void log_message(const doctest::MessageData& /*data*/) override {}
    void test_case_skipped(const doctest::TestCaseData& /*data*/) override {}

private:
    static std::vector<std::uint64_t> with_before_tests(std::vector<std::uint64_t> counts,
                                                        const std::vector<std::uint64_t>& before) {
        for (std::size_t i = 0; i < counts.size() && i < before.size(); ++i) counts[i] += before[i];
        return counts;
    }

    const doctest::TestCaseData* current_ = nullptr;
    std::vector<std::uint64_t> before_tests_sites_;
    std::vector<std::uint64_t> before_tests_generated_;
};

REGISTER_LISTENER("mutant-coverage", 1, MutantCoverage);

void list_sites() {
    using moq::util::json_quote;
    for (const moq::mutation::Site& site : moq::mutation::sites()) {
        std::printf("{\"name\":%s,\"category\":%s,\"file\":%s,\"line\":%d,\"survivor_reason\":%s}\n",
                    json_quote(site.name).c_str(), json_quote(moq::mutation::category_name(site.category)).c_str(),
                    json_quote(site.file).c_str(), site.line, json_quote(site.survivor_reason).c_str());
    }
}

void list_generated() {
    using moq::util::json_quote;
    for (const moq::mutation::GeneratedMutant& mutant : moq::mutation::generated_mutants()) {
        std::printf(
            "{\"id\":%s,\"file\":%s,\"line\":%d,\"column\":%d,\"operator\":%s,\"original\":%s,"
            "\"replacement\":%s}\n",
            json_quote(mutant.id).c_str(), json_quote(mutant.file).c_str(), mutant.line, mutant.column,
            json_quote(mutant.mutation).c_str(), json_quote(mutant.original).c_str(),
            json_quote(mutant.replacement).c_str());
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc > 0) {
        const char* slash = std::strrchr(argv[0], '/');
        program_name = slash ? slash + 1 : argv[0];
    }
    // --mutant-coverage FILE is this program's, taken out before doctest reads the rest.
    std::vector<char*> arguments(argv, argv + argc);
    for (std::size_t i = 1; i < arguments.size(); ++i) {
        if (std::strncmp(arguments[i], "--mutant-coverage=", 18) == 0) {
            std::fprintf(stderr, "%s: write --mutant-coverage FILE, not --mutant-coverage=FILE\n", program_name);
            return 2;
        }
        if (std::strcmp(arguments[i], "--mutant-coverage") != 0) continue;
        if (i + 1 >= arguments.size() || arguments[i + 1][0] == '\0') {
            std::fprintf(stderr, "%s: --mutant-coverage needs a file\n", program_name);
            return 2;
        }
        if (!moq::mutation::mutants_enabled()) {
            std::fprintf(stderr, "%s: --mutant-coverage needs a build with mutants (-Dmutants=true)\n", program_name);
            return 2;
        }
        coverage_path = arguments[i + 1];
        arguments.erase(arguments.begin() + static_cast<std::ptrdiff_t>(i),
                        arguments.begin() + static_cast<std::ptrdiff_t>(i) + 2);
        --i;
    }
    if (!coverage_path.empty()) {
        // A file that cannot be written is refused before any test, not after all of them.
        const std::string partial = coverage_path + ".partial";
        const bool writable = static_cast<bool>(std::ofstream(partial));
        std::error_code ignored;
        std::filesystem::remove(partial, ignored);
        if (!writable) {
            std::fprintf(stderr, "%s: cannot write %s\n", program_name, partial.c_str());
            return 2;
        }
    }
    if (!coverage_path.empty()) moq::mutation::count_generated_evaluations(true);
    argc = static_cast<int>(arguments.size());
    argv = arguments.data();
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--list-sites") == 0) {
            list_sites();
            return 0;
        }
        if (std::strcmp(argv[i], "--list-generated") == 0) {
            list_generated();
            return 0;
        }
    }
    moq::mutation::active_mutant();  // an unknown MOQ_MUTANT stops here, before any test
    doctest::Context context(argc, argv);
    return context.run();
}
