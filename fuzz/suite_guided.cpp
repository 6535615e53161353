// The guided search (docs/TESTING.md, "Guided search"): libFuzzer over one suite's cases
// and schedules. An input is a case in its stored form and a byte per scheduling decision
// (properties/guided.hpp); the custom mutator changes one operation, one argument, one
// setting or the schedule, so every input stays a case the suite reads. Coverage is the
// compiler's (every object is instrumented in a build with -Dfuzz=true) and, as features
// of their own, how often the run hit each probe (core/util/probe.hpp) and, in a build
// with mutants, which mutation sites it evaluated: a run that reaches a rare state is kept even
// when it runs no new line.
//
// A run the suite's model refuses is a finding: its case and every decision are written as
// a case file (MOQ_FUZZ_FINDINGS, default the current folder), which
// `moqsim replay FILE` replays, shrinks (--shrink) and saves (--save), and the
// target aborts, so libFuzzer keeps the input and stops.
//
// MOQ_FUZZ_KEEP_GOING=1 makes a refused run a line, "guided failure at execution N: ...",
// and goes on: how moqtools.guided_corpus learns which inputs of a corpus a mutant fails.
//
// MOQ_FUZZ_PROBES=FILE writes, when the process exits, every probe's hits over all its
// runs (JSON, name to count): the probes a search reached.
//
// MOQ_FUZZ_SUITE names the suite whose cases the mutator makes (scripts/fuzz suite-NAME
// sets it); an input of another suite is refused. Without libFuzzer (a build without
// -Dfuzz=true) the target links fuzz/replay_main.cpp and replays fuzz/corpus/suite-*/,
// which must all pass.
#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz/support.hpp"
#include "properties/guided.hpp"
#include "runner/args.hpp"
#include "runner/output.hpp"
#include "runner/replay_file.hpp"
#include "util/mutation.hpp"
#include "util/probe.hpp"

namespace {

using moq::properties::GuidedInput;

constexpr std::size_t feature_slots = 256;  // the first half for probes, the second for sites

// libFuzzer reads this section after every run as counters of its own, like the
// compiler's edge counters (-fsanitize-coverage's extra counters).
__attribute__((used, section("__libfuzzer_extra_counters"))) std::uint8_t extra_features[feature_slots];

struct Settings {
    const moq::properties::Suite* suite = nullptr;  // null: any suite's inputs (a corpus replay)
    std::string findings = ".";
    bool count_sites = false;  // a build with mutants
    bool keep_going = false;   // a refused run is a line, not a finding
};

// MOQ_FUZZ_PROBES, kept apart from the settings: they are destroyed before the exit hook runs.
const char* probes_path = nullptr;

void write_probes();

Settings& settings() {
    static Settings instance = [] {
        Settings read;
        if (const char* name = std::getenv("MOQ_FUZZ_SUITE"); name && *name) {
            read.suite = moq::properties::find_suite(name);
            if (!read.suite) {
                std::fprintf(stderr, "suite_guided: MOQ_FUZZ_SUITE names no suite: '%s'\n", name);
                std::exit(2);
            }
        }
        if (const char* folder = std::getenv("MOQ_FUZZ_FINDINGS"); folder && *folder) read.findings = folder;
        read.count_sites = moq::mutation::mutants_enabled();
        if (const char* keep_going = std::getenv("MOQ_FUZZ_KEEP_GOING"))
            read.keep_going = std::string(keep_going) == "1";
        if (const char* path = std::getenv("MOQ_FUZZ_PROBES"); path && *path) {
            probes_path = path;
            std::atexit(write_probes);
        }
        return read;
    }();
    return instance;
}

std::uint64_t executions = 0;

void write_probes() {
    nlohmann::json hits = nlohmann::json::object();
    const std::vector<moq::probe::Probe> all = moq::probe::probes();
    const std::vector<std::uint64_t> counts = moq::probe::hit_counts();
    for (std::size_t i = 0; i < all.size(); ++i) hits[std::string(all[i].name)] = counts[i];
    try {
        moq::runner::write_atomically(probes_path,
                                      nlohmann::json{{"executions", executions}, {"hits", hits}}.dump(1) + "\n");
    } catch (const moq::runner::UsageError& error) {
        std::fprintf(stderr, "suite_guided: cannot write the probes: %s\n", error.what());
    }
}

std::vector<std::uint64_t> site_counts() {
    return settings().count_sites ? moq::mutation::evaluation_counts() : std::vector<std::uint64_t>{};
}

// The run's hits of each probe, as counters libFuzzer buckets (1, 2, 3, 4-7, ... 128+),
// and whether it evaluated each site at all: how often a site is evaluated follows the
// length of the run, and counting it would make nearly every run new.
void report_features(const std::vector<std::uint64_t>& probes_before, const std::vector<std::uint64_t>& sites_before) {
    const std::vector<std::uint64_t> probes = moq::probe::hit_counts();
    static const bool told = [&] {
        if (probes.size() > feature_slots / 2 || site_counts().size() > feature_slots / 2)
            std::fprintf(stderr, "suite_guided: more than %zu probes or sites: the rest are no features\n",
                         feature_slots / 2);
        return true;
    }();
    static_cast<void>(told);
    for (std::size_t i = 0; i < probes.size() && i < feature_slots / 2; ++i)
        extra_features[i] = static_cast<std::uint8_t>(std::min<std::uint64_t>(probes[i] - probes_before[i], 255));
    const std::vector<std::uint64_t> sites = site_counts();
    for (std::size_t i = 0; i < sites.size() && i < feature_slots / 2; ++i)
        extra_features[feature_slots / 2 + i] = sites[i] != sites_before[i] ? 1 : 0;
}

[[noreturn]] void report_finding(const GuidedInput& input, const moq::properties::CaseOutcome& run) {
    moq::runner::FoundBy found;
    found.way = "guided";
    std::optional<std::string> mutant;
    if (const char* name = std::getenv("MOQ_MUTANT"); name && *name) mutant = name;
    const moq::runner::ReplayFile file = moq::runner::replay_file_of(*input.suite, *input.value, run, mutant, found);
    char name[64];
    std::snprintf(name, sizeof name, "guided-%s-%016llx.json", std::string(input.suite->name()).c_str(),
                  static_cast<unsigned long long>(run.digest));
    const std::string path = settings().findings + "/" + name;
    try {
        moq::runner::write_replay_file(path, file);
    } catch (const moq::runner::UsageError& error) {
        std::fprintf(stderr, "suite_guided: cannot keep the failure: %s\n", error.what());
    }
    std::fprintf(stderr,
                 "guided failure after %llu executions: %s: %s\n"
                 "replay: moqsim replay %s   (--shrink, then --save corpus/NAME.json)\n",
                 static_cast<unsigned long long>(executions), std::string(input.suite->name()).c_str(),
                 run.message.c_str(), path.c_str());
    moq::fuzz::finding("a case the suite's model refuses");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::optional<GuidedInput> input = moq::properties::guided_decode(moq::fuzz::as_text(data, size));
#ifndef MOQ_LIBFUZZER
    // A corpus replayed without libFuzzer: every input must still be a case its suite reads.
    if (!input) moq::fuzz::finding("a corpus input that is no case of a suite (its reader changed?)");
#endif
    // -1: libFuzzer keeps no input that is not a case of the chosen suite.
    if (!input) return -1;
    if (settings().suite && input->suite != settings().suite) return -1;
    ++executions;
    const std::vector<std::uint64_t> probes_before = moq::probe::hit_counts();
    const std::vector<std::uint64_t> sites_before = site_counts();
    const moq::properties::CaseOutcome run = moq::properties::guided_run(*input);
    report_features(probes_before, sites_before);
    if (!run.ok && settings().keep_going)
        std::fprintf(stderr, "guided failure at execution %llu: %s\n", static_cast<unsigned long long>(executions),
                     run.message.c_str());
    else if (!run.ok)
        report_finding(*input, run);
    return 0;
}

#ifdef MOQ_LIBFUZZER
extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

namespace {

// The mutator and cross-over make inputs of the chosen suite (the first suite without one).
const moq::properties::Suite& chosen_suite() {
    return settings().suite ? *settings().suite : *moq::properties::suites().front();
}

std::size_t copy_out(const std::string& bytes, std::uint8_t* out, std::size_t max_size) {
    const std::size_t size = std::min(bytes.size(), max_size);
    std::memcpy(out, bytes.data(), size);
    return size;
}

}  // namespace

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned int seed) {
    std::mt19937_64 random(seed);
    const std::string mutated =
        moq::properties::guided_mutate(chosen_suite(), moq::fuzz::as_text(data, size), max_size, random,
                                       [](std::uint8_t* bytes, std::size_t used, std::size_t capacity) {
                                           return LLVMFuzzerMutate(bytes, used, capacity);
                                       });
    return copy_out(mutated, data, max_size);
}

extern "C" std::size_t LLVMFuzzerCustomCrossOver(const std::uint8_t* first, std::size_t first_size,
                                                 const std::uint8_t* second, std::size_t second_size, std::uint8_t* out,
                                                 std::size_t max_size, unsigned int seed) {
    std::mt19937_64 random(seed);
    const std::string child = moq::properties::guided_cross(chosen_suite(), moq::fuzz::as_text(first, first_size),
                                                            moq::fuzz::as_text(second, second_size), max_size, random);
    return copy_out(child, out, max_size);
}
#endif
