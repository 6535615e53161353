#include "kio/waiter.hpp"

#include <limits>
#include <utility>

#include "kio/core_lock.hpp"
#include "kio/waiter_list.hpp"
#include "util/assert.hpp"
#include "util/probe.hpp"

namespace moq::kio {
namespace detail {

namespace {

std::uint64_t next_identity_id() {
    static std::atomic<std::uint64_t> counter{1};
    const std::uint64_t id = counter.fetch_add(1, std::memory_order_relaxed);
    MOQ_ASSERT_LT(id, std::numeric_limits<std::uint64_t>::max());
    return id;
}

}  // namespace

Identity::Identity(Waker waker) : id_(next_identity_id()), waker_(std::move(waker)) {}

void Identity::release_strong() noexcept {
    if (strong_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        // The owner is gone: release the task now, keep the block while entries pin it.
        Waker released = std::move(waker_);
        release_weak();
    }
}

void Identity::release_weak() noexcept {
    if (weak_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
}

bool Identity::try_upgrade() noexcept {
    std::uint32_t count = strong_.load(std::memory_order_relaxed);
    while (count != 0) {
        if (strong_.compare_exchange_weak(count, count + 1, std::memory_order_acquire, std::memory_order_relaxed))
            return true;
    }
    return false;
}

Presence Identity::presume(std::uint64_t list_id, std::uint64_t epoch) {
    CoreLock lock(records_mutex_, LockLevel::waiter_records);
    for (int i = 0; i < records_used_; ++i) {
        Record& record = records_[i];
        if (record.list_id != list_id) continue;
        // A list's epoch only grows (each drain bumps it): a record is never ahead.
        MOQ_ASSERT_LE(record.epoch, epoch);
        const bool current = record.epoch == epoch;
        // The list was drained since this identity registered: its record is stale (K5).
        MOQ_SOMETIMES("waiters.record.stale_epoch", !current);
        record.epoch = epoch;
        return current ? Presence::present : Presence::absent;
    }
    int slot = records_used_;
    if (slot == recorded_lists) {
        MOQ_PROBE("waiters.record.evicted");
        // A pseudo-random victim: a fixed order would, for a cycle of lists one wider
        // than the table, always evict the record needed next.
        eviction_seed_ = eviction_seed_ * 0x9E3779B97F4A7C15ull + 1;
        slot = static_cast<int>((eviction_seed_ >> 32) % recorded_lists);
    } else {
        ++records_used_;
    }
    MOQ_ASSERT_LT(slot, recorded_lists);
    records_[slot] = Record{list_id, epoch};
    return Presence::unknown;
}

void Identity::forget(std::uint64_t list_id) noexcept {
    CoreLock lock(records_mutex_, LockLevel::waiter_records);
    for (int i = 0; i < records_used_; ++i) {
        if (records_[i].list_id != list_id) continue;
        records_[i] = records_[--records_used_];
        return;
    }
}

}  // namespace detail

Waiter::Waiter(const Waiter& other) : waker_(other.waker_), serial_(other.serial_), noop_(other.noop_) {
    if (noop_) return;
    detail::Identity& shared = other.identity();
    shared.retain_strong();
    identity_.store(&shared, std::memory_order_release);
}

Waiter::Waiter(Waiter&& other) noexcept
    : waker_(std::move(other.waker_)),
      serial_(std::exchange(other.serial_, 0)),
      identity_(other.identity_.exchange(nullptr, std::memory_order_acq_rel)),
      noop_(other.noop_) {}

Waiter::~Waiter() {
    if (detail::Identity* identity = identity_.load(std::memory_order_acquire)) identity->release_strong();
}

detail::Identity& Waiter::identity() const {
    MOQ_ASSERT(!noop_);
    detail::Identity* current = identity_.load(std::memory_order_acquire);
    if (current) return *current;
    auto* created = new detail::Identity(waker_);
    if (identity_.compare_exchange_strong(current, created, std::memory_order_acq_rel)) return *created;
    created->release_strong();  // another thread won the race
    return *current;
}

const Waiter& noop_waiter() {
    static const Waiter noop = Waiter::noop();
    return noop;
}

void Waiter::register_on(WaiterList& list) const {
    if (noop_) return;
    list.add(*this);
}

}  // namespace moq::kio
