#include "sim/happens_before.hpp"

#include <algorithm>

namespace moq::sim {

namespace {

bool acquires(std::memory_order order) {
    return order == std::memory_order_consume || order == std::memory_order_acquire ||
           order == std::memory_order_acq_rel || order == std::memory_order_seq_cst;
}

bool releases(std::memory_order order) {
    return order == std::memory_order_release || order == std::memory_order_acq_rel ||
           order == std::memory_order_seq_cst;
}

}  // namespace

void HappensBefore::join(Clock& into, const Clock& from) {
    if (into.size() < from.size()) into.resize(from.size(), 0);
    for (std::size_t at = 0; at < from.size(); ++at) into[at] = std::max(into[at], from[at]);
}

HappensBefore::Clock& HappensBefore::clock_of(std::uint32_t task) {
    if (tasks_.size() <= task) tasks_.resize(task + 1);
    Clock& clock = tasks_[task];
    // A task's own entry starts at 1: zero means "saw nothing of it".
    if (clock.size() <= task) clock.resize(task + 1, 0);
    if (clock[task] == 0) clock[task] = 1;
    return clock;
}

HappensBefore::Carried& HappensBefore::carried_by(const void* object) {
    const auto found = std::find_if(objects_.begin(), objects_.end(),
                                    [object](const Carried& entry) { return entry.object == object; });
    if (found != objects_.end()) return *found;
    return objects_.emplace_back(Carried{object, {}, {}});
}

void HappensBefore::release(std::uint32_t task, Clock& into, bool joined) {
    Clock& own = clock_of(task);
    if (joined)
        join(into, own);
    else
        into = own;
    ++own[task];
}

void HappensBefore::spawned(std::optional<std::uint32_t> parent, std::uint32_t child) {
    if (!parent) {
        clock_of(child);
        return;
    }
    Clock inherited = clock_of(*parent);
    ++clock_of(*parent)[*parent];
    Clock& clock = clock_of(child);
    join(clock, inherited);
}

void HappensBefore::ordered(std::uint32_t task, const void* object, kio::SyncAccess access, std::memory_order order) {
    Carried& entry = carried_by(object);
    join(entry.used, clock_of(task));
    Clock& carried = entry.released;
    switch (access) {
        case kio::SyncAccess::load:
            if (acquires(order)) join(clock_of(task), carried);
            break;
        case kio::SyncAccess::store:
            if (releases(order))
                release(task, carried, false);
            else
                carried.clear();
            break;
        case kio::SyncAccess::read_modify_write:
            if (acquires(order)) join(clock_of(task), carried);
            if (releases(order)) release(task, carried, true);
            break;
    }
}

void HappensBefore::woke(std::uint32_t waker, std::uint32_t woken) {
    if (waker == woken) return;
    Clock passed = clock_of(waker);
    ++clock_of(waker)[waker];
    join(clock_of(woken), passed);
}

bool HappensBefore::after_every_use(std::uint32_t task, const void* object) {
    const Clock& used = carried_by(object).used;
    const Clock& own = clock_of(task);
    for (std::size_t at = 0; at < used.size(); ++at)
        if (used[at] > (at < own.size() ? own[at] : 0)) return false;
    return true;
}

Stamp HappensBefore::stamp(std::uint32_t task) const {
    if (task >= tasks_.size() || tasks_[task].size() <= task) return Stamp{task, 1};
    return Stamp{task, tasks_[task][task]};
}

bool HappensBefore::saw(std::uint32_t task, Stamp stamp) const {
    if (task == stamp.task) return true;
    if (task >= tasks_.size()) return false;
    const Clock& clock = tasks_[task];
    return stamp.task < clock.size() && clock[stamp.task] >= stamp.epoch;
}

}  // namespace moq::sim
