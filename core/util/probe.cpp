#include "util/probe.hpp"

#include <algorithm>
#include <mutex>
#include <utility>

namespace moq::probe {

namespace {

// The probes by name, each with every counter registered under it.
struct Named {
    Probe probe;
    std::vector<std::atomic<std::uint64_t>*> counters;
};

struct Registry {
    std::mutex mutex;
    std::vector<Probe> probes;                          // in registration order
    std::vector<std::atomic<std::uint64_t>*> counters;  // by registration index
    // Made again only when a probe registered since (registration ends with static
    // initialisation), so reading every count after each run costs a walk over the
    // counters. Kept here, made with the first probe, so it outlives a caller's exit hook.
    std::vector<Named> named;
    std::size_t named_from = 0;
};

Registry& registry() {
    static Registry instance;
    return instance;
}

// The probes by name, under the registry's lock.
const std::vector<Named>& by_name(Registry& all) {
    std::vector<Named>& named = all.named;
    if (all.named_from == all.probes.size() && !named.empty()) return named;
    named.clear();
    for (std::size_t i = 0; i < all.probes.size(); ++i) {
        auto same = std::find_if(named.begin(), named.end(),
                                 [&](const Named& entry) { return entry.probe.name == all.probes[i].name; });
        if (same == named.end())
            named.push_back({all.probes[i], {all.counters[i]}});
        else
            same->counters.push_back(all.counters[i]);
    }
    std::stable_sort(named.begin(), named.end(),
                     [](const Named& a, const Named& b) { return a.probe.name < b.probe.name; });
    all.named_from = all.probes.size();
    return named;
}

std::uint64_t sum(const std::vector<std::atomic<std::uint64_t>*>& counters) {
    std::uint64_t total = 0;
    for (const std::atomic<std::uint64_t>* counter : counters) total += counter->load(std::memory_order_relaxed);
    return total;
}

}  // namespace

std::string_view kind_name(Kind kind) { return kind == Kind::path ? "path" : "state"; }

int add_probe(Probe probe, std::atomic<std::uint64_t>* hits) {
    probe.file = mutation::project_relative(probe.file);
    Registry& all = registry();
    std::lock_guard lock(all.mutex);
    all.probes.push_back(probe);
    all.counters.push_back(hits);
    return static_cast<int>(all.probes.size() - 1);
}

std::vector<Probe> probes() {
    Registry& all = registry();
    std::lock_guard lock(all.mutex);
    std::vector<Probe> list;
    for (const Named& entry : by_name(all)) list.push_back(entry.probe);
    return list;
}

std::vector<std::uint64_t> hit_counts() {
    Registry& all = registry();
    std::lock_guard lock(all.mutex);
    std::vector<std::uint64_t> counts;
    counts.reserve(by_name(all).size());
    for (const Named& entry : by_name(all)) counts.push_back(sum(entry.counters));
    return counts;
}

std::uint64_t hits(std::string_view name) {
    Registry& all = registry();
    std::lock_guard lock(all.mutex);
    for (const Named& entry : by_name(all))
        if (entry.probe.name == name) return sum(entry.counters);
    return 0;
}

void reset_hits() {
    Registry& all = registry();
    std::lock_guard lock(all.mutex);
    for (std::atomic<std::uint64_t>* counter : all.counters) counter->store(0, std::memory_order_relaxed);
}

}  // namespace moq::probe
