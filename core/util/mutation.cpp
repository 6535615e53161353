#include "util/mutation.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string_view>

namespace moq::mutation {

namespace {

struct Registry {
    std::mutex mutex;
    std::vector<Site> sites;
    std::vector<std::atomic<std::uint64_t>*> evaluations;  // by site index; null: not counted
    const GeneratedMutant* generated = nullptr;
    std::size_t generated_count = 0;
};

Registry& registry() {
    static Registry instance;
    return instance;
}

// -2: not read yet. Read from MOQ_MUTANT on first use in a mutants build.
std::atomic<int> active_index{-2};
// The generated mutant switched on; meaningful once the environment is read.
std::atomic<int> active_generated{-1};
std::once_flag environment_read;

// The generated table's counters, one a mutant. Set once at static initialisation and
// never freed: a thread still running at exit may count.
std::atomic<std::atomic<std::uint64_t>*> generated_counters{nullptr};
std::atomic<std::size_t> generated_counter_count{0};
std::atomic<bool> generated_counting{false};

int index_of(std::string_view name) {
    Registry& all = registry();
    std::lock_guard lock(all.mutex);
    for (std::size_t i = 0; i < all.sites.size(); ++i)
        if (all.sites[i].name == name) return static_cast<int>(i);
    return -1;
}

int generated_index_of(std::string_view name) {
    Registry& all = registry();
    std::lock_guard lock(all.mutex);
    for (std::size_t i = 0; i < all.generated_count; ++i)
        if (all.generated[i].id == name) return static_cast<int>(i);
    return -1;
}

// Switches on what `name` names: a site (off) or a generated mutant (on). False if unknown.
bool activate(std::string_view name) {
    const int site = index_of(name);
    const int generated = site < 0 ? generated_index_of(name) : -1;
    if (site < 0 && generated < 0) return false;
    active_index = site;
    active_generated = generated;
    return true;
}

}  // namespace

std::string_view project_relative(std::string_view file) {
    while (file.starts_with("../")) file.remove_prefix(3);
    return file;
}

std::string_view category_name(Category category) {
    switch (category) {
        case Category::disarm: return "disarm";
        case Category::register_input: return "register";
        case Category::notify: return "notify";
        case Category::gate: return "gate";
        case Category::fault: return "fault";
    }
    return "unknown";
}

int add_site(Site site, std::atomic<std::uint64_t>* evaluations) {
    site.file = project_relative(site.file);
    Registry& all = registry();
    std::lock_guard lock(all.mutex);
    all.sites.push_back(site);
    all.evaluations.push_back(evaluations);
    return static_cast<int>(all.sites.size() - 1);
}

std::uint64_t evaluations(std::string_view name) {
    const int index = index_of(name);
    if (index < 0) return 0;
    Registry& all = registry();
    std::lock_guard lock(all.mutex);
    const std::atomic<std::uint64_t>* counter = all.evaluations[static_cast<std::size_t>(index)];
    return counter ? counter->load(std::memory_order_relaxed) : 0;
}

void reset_evaluations() {
    Registry& all = registry();
    std::lock_guard lock(all.mutex);
    for (std::atomic<std::uint64_t>* counter : all.evaluations)
        if (counter) counter->store(0, std::memory_order_relaxed);
    std::atomic<std::uint64_t>* counters = generated_counters.load(std::memory_order_acquire);
    const std::size_t count = counters ? generated_counter_count.load(std::memory_order_relaxed) : 0;
    for (std::size_t i = 0; i < count; ++i) counters[i].store(0, std::memory_order_relaxed);
}

std::vector<std::uint64_t> evaluation_counts() {
    Registry& all = registry();
    std::vector<std::pair<std::string_view, std::uint64_t>> named;
    {
        std::lock_guard lock(all.mutex);
        for (std::size_t i = 0; i < all.sites.size(); ++i)
            named.emplace_back(all.sites[i].name,
                               all.evaluations[i] ? all.evaluations[i]->load(std::memory_order_relaxed) : 0);
    }
    std::sort(named.begin(), named.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::uint64_t> counts;
    counts.reserve(named.size());
    for (const auto& entry : named) counts.push_back(entry.second);
    return counts;
}

namespace {

// MOQ_MUTANT_HITS=FILE: the coverage of a program with no --mutant-coverage of its own
// (the runtime's tests, the fanout program): counting from before main, as with
// MOQ_COUNT_MUTANTS=1, and at a normal exit the id of every generated mutant evaluated,
// one a line, written to FILE.
const char* hits_path() {
    static const char* const path = [] {
        const char* value = std::getenv("MOQ_MUTANT_HITS");
        return value != nullptr && *value != '\0' ? value : nullptr;
    }();
    return path;
}

void write_hits() {
    const std::vector<std::uint64_t> counts = generated_evaluation_counts();
    std::FILE* out = std::fopen(hits_path(), "w");
    if (out == nullptr) {
        std::fprintf(stderr, "moqsim: cannot write MOQ_MUTANT_HITS=%s\n", hits_path());
        std::_Exit(2);
    }
    Registry& all = registry();
    std::lock_guard lock(all.mutex);
    for (std::size_t i = 0; i < counts.size() && i < all.generated_count; ++i) {
        if (counts[i] == 0) continue;
        const std::string_view id = all.generated[i].id;
        std::fprintf(out, "%.*s\n", static_cast<int>(id.size()), id.data());
    }
    if (std::fclose(out) != 0) {
        std::fprintf(stderr, "moqsim: cannot write MOQ_MUTANT_HITS=%s\n", hits_path());
        std::_Exit(2);
    }
}

}  // namespace

int add_generated_mutants(const GeneratedMutant* first, std::size_t count) {
    Registry& all = registry();
    std::lock_guard lock(all.mutex);
    all.generated = first;
    all.generated_count = count;
    if (!generated_counters.load(std::memory_order_relaxed)) {
        generated_counter_count.store(count, std::memory_order_relaxed);
        generated_counters.store(new std::atomic<std::uint64_t>[count](), std::memory_order_release);
    } else if (generated_counter_count.load(std::memory_order_relaxed) != count) {
        std::fprintf(stderr, "moqsim: two tables of generated mutants, of %zu and %zu\n",
                     generated_counter_count.load(std::memory_order_relaxed), count);
        std::abort();
    }
    // At static initialisation, after registry() made its instance: the file is written
    // before that instance is destroyed.
    if (hits_path() != nullptr) std::atexit(&write_hits);
    return static_cast<int>(count);
}

void count_generated_evaluations(bool on) { generated_counting.store(on, std::memory_order_relaxed); }

// MOQ_COUNT_MUTANTS=1 (or MOQ_MUTANT_HITS) turns counting on from the program's first
// evaluation, before main: a coverage run must see what static initialisation evaluates too.
bool counting_from_environment() {
    static const bool asked = [] {
        const char* value = std::getenv("MOQ_COUNT_MUTANTS");
        return hits_path() != nullptr || (value != nullptr && std::string_view(value) == "1");
    }();
    return asked;
}

void count_generated_evaluation(int index) {
    if (!generated_counting.load(std::memory_order_relaxed) && !counting_from_environment()) return;
    std::atomic<std::uint64_t>* counters = generated_counters.load(std::memory_order_acquire);
    if (counters && index >= 0 &&
        static_cast<std::size_t>(index) < generated_counter_count.load(std::memory_order_relaxed))
        counters[index].fetch_add(1, std::memory_order_relaxed);
}

std::vector<std::uint64_t> generated_evaluation_counts() {
    std::atomic<std::uint64_t>* counters = generated_counters.load(std::memory_order_acquire);
    const std::size_t count = counters ? generated_counter_count.load(std::memory_order_relaxed) : 0;
    std::vector<std::uint64_t> result(count);
    for (std::size_t i = 0; i < count; ++i) result[i] = counters[i].load(std::memory_order_relaxed);
    return result;
}

std::vector<GeneratedMutant> generated_mutants() {
    Registry& all = registry();
    std::lock_guard lock(all.mutex);
    return {all.generated, all.generated + all.generated_count};
}

std::vector<Site> sites() {
    Registry& all = registry();
    std::vector<Site> copy;
    {
        std::lock_guard lock(all.mutex);
        copy = all.sites;
    }
    std::sort(copy.begin(), copy.end(), [](const Site& a, const Site& b) { return a.name < b.name; });
    return copy;
}

int active_mutant() {
    // The first evaluation may happen on any thread while others run: a bad MOQ_MUTANT
    // ends the process with _Exit, which runs no static destructors under those threads.
    std::call_once(environment_read, [] {
        if (active_index.load() != -2) return;
        active_index = -1;
        const char* name = std::getenv("MOQ_MUTANT");
        if (!name || !*name) return;
        if (!mutants_enabled()) {
            std::fprintf(stderr,
                         "moqsim: MOQ_MUTANT is set but this build has no mutants "
                         "(configure with -Dmutants=true)\n");
            std::_Exit(2);
        }
        if (!activate(name)) {
            std::fprintf(stderr,
                         "moqsim: unknown mutant '%s' (moqsim list --sites names the sites, scripts/mutate --list "
                         "every mutant)\n",
                         name);
            std::_Exit(2);
        }
    });
    return active_index;
}

int active_generated_mutant() {
    active_mutant();
    return active_generated.load(std::memory_order_relaxed);
}

bool set_active_mutant(std::string_view name) {
    active_mutant();  // settle the environment first, so it cannot override this later
    if (name.empty()) {
        active_index = -1;
        active_generated = -1;
        return true;
    }
    return activate(name);
}

}  // namespace moq::mutation
