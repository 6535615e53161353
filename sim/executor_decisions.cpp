// The executor's decision points (sim/decisions.hpp): each point where a run could go more
// than one way is asked of the decider, with its default and whether leaving the default
// costs a unit of the preemption bound.
#include <algorithm>

#include "sim/executor.hpp"
#include "sim/task_slot.hpp"
#include "util/assert.hpp"

namespace moq::sim {

std::uint32_t Executor::choose_pick(const std::vector<std::uint32_t>& candidates) {
    if (forced_next_ != UINT32_MAX) {  // a switch at a schedule point chose it
        const std::uint32_t chosen = std::exchange(forced_next_, UINT32_MAX);
        MOQ_ASSERT(std::find(runnable_.begin(), runnable_.end(), chosen) != runnable_.end());
        return chosen;
    }
    if (candidates.size() == 1) return candidates.front();
    // The task that ran last, if it can still run (it yielded, or was woken during its
    // own poll), goes on by default; running another is a preemption. Otherwise the
    // first runnable goes, and any other is free: the last task parked or ended.
    const auto last = std::find(candidates.begin(), candidates.end(), last_stepped_);
    const bool still_runnable = last != candidates.end();
    const DecisionPoint point{.kind = DecisionKind::pick,
                              .options = static_cast<std::uint32_t>(candidates.size()),
                              .fallback = still_runnable ? static_cast<std::uint32_t>(last - candidates.begin()) : 0,
                              .costly = still_runnable,
                              .where = "pick",
                              .tasks = candidates.data()};
    return candidates[decide(point)];
}

void Executor::choose_preempt(detail::TaskSlot& slot, const char* where, const void* object) {
    const std::uint32_t running = slot.id;
    const std::vector<std::uint32_t>& others = runnable_except(running);
    if (others.empty()) {
        touch(object);
        return;
    }
    // Choice 0 goes on; choice i switches to others[i - 1], and costs one of the bound.
    choice_tasks_.assign(1, running);
    choice_tasks_.insert(choice_tasks_.end(), others.begin(), others.end());
    const DecisionPoint point{.kind = DecisionKind::preempt,
                              .options = static_cast<std::uint32_t>(choice_tasks_.size()),
                              .fallback = 0,
                              .costly = true,
                              .where = where,
                              .tasks = choice_tasks_.data()};
    const std::uint32_t choice = decide(point);
    if (choice == 0) {
        touch(object);
        return;
    }
    forced_next_ = choice_tasks_[choice];
    slot.resume_object = object;
    slot.stopped_at = where;
    trace_event(Event{.kind = EventKind::preempt, .task = running, .name = where});
    make_runnable(slot);
    suspend(slot);
}

void Executor::choose_spurious_poll() {
    parked_.clear();
    for (auto& slot : tasks_)
        if (slot->state == detail::TaskSlot::State::parked) parked_.push_back(slot.get());
    if (parked_.empty()) return;
    // Choice 0: no spurious poll; choice i polls parked_[i - 1].
    const DecisionPoint point{.kind = DecisionKind::spurious_poll,
                              .options = static_cast<std::uint32_t>(parked_.size() + 1),
                              .fallback = 0,
                              .costly = true,
                              .where = "spurious"};
    const std::uint32_t choice = decide(point);
    if (choice == 0) return;
    detail::TaskSlot& chosen = *parked_[choice - 1];
    trace_event(Event{.kind = EventKind::spurious, .task = chosen.id});
    touched_unknown();
    make_runnable(chosen);
}

bool Executor::choose_fresh_poll() {
    return decide(DecisionPoint{
               .kind = DecisionKind::fresh_poll, .options = 2, .fallback = 0, .costly = true, .where = "fresh"}) == 1;
}

kio::Duration Executor::choose_clock_jump() {
    // Choice 0: no jump; choice k jumps by the k-th size.
    const std::uint32_t choice = decide(DecisionPoint{.kind = DecisionKind::clock_jump,
                                                      .options = clock_jump_sizes + 1,
                                                      .fallback = 0,
                                                      .costly = true,
                                                      .where = "clock"});
    return choice == 0 ? kio::Duration(0) : clock_jump_size(options_.clock_jump_max, choice);
}

void Executor::deliver_timer_wakes() {
    // Held back only when their order can show (inline wakes); a tie costs nothing of the
    // bound: the timers' own order is as arbitrary as any other.
    while (!held_wakes_.empty()) {
        std::size_t index = 0;
        if (held_wakes_.size() > 1) {
            index = decide(DecisionPoint{.kind = DecisionKind::timer_tie,
                                         .options = static_cast<std::uint32_t>(held_wakes_.size()),
                                         .fallback = 0,
                                         .costly = false,
                                         .where = "timers"});
        }
        const auto [task, identity] = held_wakes_[index];
        held_wakes_.erase(held_wakes_.begin() + static_cast<std::ptrdiff_t>(index));
        wake(task, identity);
    }
}

std::uint32_t Executor::decide(DecisionPoint point) {
    if (wants_state_ && state_digest_) point.state = state_digest();
    const std::uint32_t choice = decider_->choose(point);
    MOQ_ASSERT_LT(choice, point.options);
    if (options_.record_decisions)
        taken_.push_back(Taken{point.where, point.kind, point.costly, point.options, choice, point.fallback});
    return choice;
}

void Executor::touched_task(const detail::TaskSlot& slot) {
    if (!footprints_) return;
    if (options_.footprints_complete) {
        decider_->touched_task(slot.id);
    } else {
        decider_->touched(nullptr);
    }
}

std::uint64_t Executor::object_number(const void* object) {
    if (!object) return 0;
    const auto found = std::find(numbered_objects_.begin(), numbered_objects_.end(), object);
    if (found != numbered_objects_.end()) return static_cast<std::uint64_t>(found - numbered_objects_.begin()) + 1;
    numbered_objects_.push_back(object);
    return numbered_objects_.size();
}

namespace {

// A schedule point's label by its text: a literal's address may differ between builds.
std::uint64_t label_hash(const char* label) {
    if (!label) return 0;
    std::uint64_t hash = 0xcbf29ce484222325ull;  // FNV-1a
    for (const char* at = label; *at != '\0'; ++at) hash = (hash ^ static_cast<unsigned char>(*at)) * 0x100000001b3ull;
    return hash;
}

}  // namespace

std::uint64_t Executor::state_digest() {
    // What the executor holds of the future: each task's status and the point it stands
    // at, the runnable order (it sets the defaults), the last task run, and the time.
    std::uint64_t digest = splitmix64_mix(static_cast<std::uint64_t>(now_) ^ 0x5851F42D4C957F2Dull);
    const auto mix = [&digest](std::uint64_t value) { digest = splitmix64_mix(digest ^ (value + splitmix64_gamma)); };
    for (const auto& slot : tasks_) {
        mix(static_cast<std::uint64_t>(slot->state));
        mix(object_number(slot->resume_object));
        mix(label_hash(slot->stopped_at));
        mix(slot->woken ? 1 : 0);
    }
    for (const std::uint32_t task : runnable_) mix(task);
    for (const std::uint32_t task : spinning_) mix(task ^ 0x8000'0000u);  // what a pick may choose
    mix(last_stepped_);
    mix(clock_.next_deadline() ? static_cast<std::uint64_t>(clock_.next_deadline()->since_start.count()) : 0);
    mix(state_digest_());
    return digest;
}

}  // namespace moq::sim
