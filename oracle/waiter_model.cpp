#include "oracle/waiter_model.hpp"

namespace moq::oracle {

void WaiterModel::created() {
    Waiter waiter;
    waiter.registered.assign(lists_, false);
    waiters_.push_back(std::move(waiter));
}

std::optional<std::size_t> WaiterModel::live_waiter(std::size_t pick) const {
    if (waiters_.empty()) return std::nullopt;
    const std::size_t waiter = pick % waiters_.size();
    if (!waiters_[waiter].alive) return std::nullopt;
    return waiter;
}

// K4: registration is idempotent per identity, and a clone is the same identity.
void WaiterModel::registered(std::size_t waiter, std::size_t list) { waiters_[waiter].registered[list] = true; }

// K7: a dropped waiter's entries are dead: never counted live, never woken.
void WaiterModel::dropped(std::size_t waiter) {
    waiters_[waiter].alive = false;
    waiters_[waiter].registered.assign(lists_, false);
}

// K6: a drain owes one wake to every live waiter registered since the last drain.
void WaiterModel::drained(std::size_t list) {
    for (Waiter& waiter : waiters_) {
        if (waiter.registered[list]) ++waiter.owed_wakes;
        waiter.registered[list] = false;
    }
}

void WaiterModel::took(std::size_t list, bool left_empty) {
    if (!left_empty) fail("K5: take() left entries in list " + std::to_string(list));
}

void WaiterModel::woken(std::size_t waiter, int wakes_so_far) {
    const Waiter& model = waiters_[waiter];
    if (wakes_so_far == model.owed_wakes) return;
    if (!model.alive && wakes_so_far > model.owed_wakes)
        fail("K6: waiter " + std::to_string(waiter) + " was woken after it was dropped (a dead entry was woken)");
    else
        fail("K6: waiter " + std::to_string(waiter) + " was woken " + std::to_string(wakes_so_far) +
             " times, expected " + std::to_string(model.owed_wakes));
}

void WaiterModel::holds(std::size_t list, std::size_t waiter, bool contains) {
    const Waiter& model = waiters_[waiter];
    if (!model.alive || contains == model.registered[list]) return;
    fail("K4: list " + std::to_string(list) + (model.registered[list] ? " lost" : " holds") + " waiter " +
         std::to_string(waiter) + (model.registered[list] ? "" : ", not registered there since its last drain"));
}

void WaiterModel::counted(std::size_t list, std::size_t live, std::size_t size) {
    std::size_t expected = 0;
    for (const Waiter& waiter : waiters_) expected += waiter.alive && waiter.registered[list] ? 1 : 0;
    if (live != expected)
        fail("K4: list " + std::to_string(list) + " holds " + std::to_string(live) + " live entries for " +
             std::to_string(expected) + " registered waiters" + (live > expected ? " (a duplicate live entry)" : ""));
    if (size < live) fail("K7: list " + std::to_string(list) + " counts more live entries than entries");
}

void WaiterModel::fail(std::string message) {
    if (violation_.empty()) violation_ = std::move(message);
}

}  // namespace moq::oracle
