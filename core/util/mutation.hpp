// Mutation sites: every wake, registration, disarm point and gate check of the core is
// named, so a test build can switch exactly one off and show that a test fails.
//
//   if (MOQ_SITE("group.skip_to.disarm", disarm)) gate.disarm();
//
// A normal build compiles a site to `true` (it still lands in the registry, at no run
// time cost). A build configured with -Dmutants=true reads MOQ_MUTANT once and turns
// that one site off, and counts how often each site is evaluated (relaxed atomic
// counters, one a site), so a report can show which runs reach which site.
//
// MOQ_MUTANT may instead name a generated mutant: a build configured with
// -Dschemata=true compiles the core from a copy written by scripts/moqtools/mutants.py in
// which every mutation point is a switch on that mutant's index (util/schema.hpp); the
// copy's table registers each mutant here. A normal build registers none.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace moq::mutation {

// `fault`: a planted fault outside the core's wake points (the runtime's state word, its
// run queue, a program's contract), whose off side is the slip the site is named for.
enum class Category { disarm, register_input, notify, gate, fault };

std::string_view category_name(Category category);

// A registered place's file relative to the project root: __FILE__ as a build folder
// inside the project names it ("../core/..."), without the leading "../".
std::string_view project_relative(std::string_view file);

struct Site {
    std::string_view name;
    Category category;
    std::string_view file;  // relative to the project root
    int line;
    std::string_view survivor_reason;  // empty unless no test can kill this site
};

// Every site linked into this program, ordered by name.
std::vector<Site> sites();

// Registers a site; returns its index. Called from static initialisation. `evaluations`
// is the site's counter (it lives as long as the program); null if it counts nothing.
int add_site(Site site, std::atomic<std::uint64_t>* evaluations = nullptr);

// How often the named site was evaluated in this process since the last reset. Only a
// mutants build counts; elsewhere always 0 (a normal build pays nothing for sites).
std::uint64_t evaluations(std::string_view name);
// Sets every site's and generated mutant's count back to 0 (between the runs a report
// tells apart).
void reset_evaluations();
// Every site's count in the order of sites(), at the cost of one lock (for a caller that
// reads all of them after every run, as the guided search does).
std::vector<std::uint64_t> evaluation_counts();

// A mutant of the generated schemata copy: where it is and what it changes.
struct GeneratedMutant {
    std::string_view id;    // "gen.model/group.cpp:44:28.rel_flip": file:line:column.operator
    std::string_view file;  // relative to the project root
    int line;
    int column;
    std::string_view mutation;  // the operator: rel_flip, cond_negate, call_delete, ...
    std::string_view original;
    std::string_view replacement;
};

// Registers the generated table, in schema index order; returns how many it holds.
// Called once, from the copy's static initialisation.
int add_generated_mutants(const GeneratedMutant* first, std::size_t count);
// Every generated mutant linked into this program, in schema index order.
std::vector<GeneratedMutant> generated_mutants();
// Counts one evaluation of generated mutant `index`'s switch, while counting is on. Every
// point of the schemata copy calls it (util/schema.hpp), so a run can tell which mutants
// it reached: a run that never evaluates a mutant's switch runs the same with that
// mutant on.
void count_generated_evaluation(int index);
// Turns the counting of generated mutants on or off (off at start, unless the environment
// has MOQ_COUNT_MUTANTS=1 or MOQ_MUTANT_HITS=FILE, which count from before main; the latter
// writes the ids evaluated to FILE at exit). Only a coverage run needs it: the counters are shared by
// every thread, and on the stress tests' threads the contention made a unit test run ten times slower.
void count_generated_evaluations(bool on);
// Every generated mutant's count since the last reset_evaluations(), in schema index order.
std::vector<std::uint64_t> generated_evaluation_counts();

// The index of the site switched off in this process, or -1.
int active_mutant();
// The schema index of the generated mutant switched on in this process, or -1.
int active_generated_mutant();
// Switches one site off or one generated mutant on (an empty name: none). False if unknown.
bool set_active_mutant(std::string_view name);
// Whether this build can switch sites off at all.
constexpr bool mutants_enabled() {
#ifdef MOQ_MUTANTS
    return true;
#else
    return false;
#endif
}

template <std::size_t N>
struct Literal {
    constexpr Literal(const char (&text)[N]) { std::copy_n(text, N, value); }  // NOLINT
    char value[N];
};

template <Literal Name, Category Kind, Literal File, int Line, Literal Reason>
struct SiteAt {
    static inline std::atomic<std::uint64_t> evaluated{0};
    static inline const int index = add_site(Site{Name.value, Kind, File.value, Line, Reason.value}, &evaluated);
    static bool on() {
#ifdef MOQ_MUTANTS
        evaluated.fetch_add(1, std::memory_order_relaxed);
        return active_mutant() != index;
#else
        static_cast<void>(index);  // odr-use: the site registers even when it cannot switch off
        return true;
#endif
    }
};

}  // namespace moq::mutation

#define MOQ_SITE_EXPLAINED(name, category, reason) \
    (::moq::mutation::SiteAt<name, ::moq::mutation::Category::category, __FILE__, __LINE__, reason>::on())
#define MOQ_SITE(name, category) MOQ_SITE_EXPLAINED(name, category, "")
