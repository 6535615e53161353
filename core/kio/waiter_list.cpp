#include "kio/waiter_list.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <new>

#include "kio/schedule_point.hpp"
#include "util/assert.hpp"
#include "util/mutation.hpp"
#include "util/probe.hpp"

namespace moq::kio {

namespace {

// List ids are never reused: a reissued id could make a stale record claim presence.
std::uint64_t next_list_id() {
    static std::atomic<std::uint64_t> counter{1};
    const std::uint64_t id = counter.fetch_add(1, std::memory_order_relaxed);
    MOQ_ASSERT_LT(id, std::numeric_limits<std::uint64_t>::max());
    return id;
}

}  // namespace

WaiterList::WaiterList() : id_(next_list_id()) {}

WaiterList::WaiterList(Untracked) noexcept {}

WaiterList::WaiterList(WaiterList&& other) noexcept : id_(other.id_), epoch_(other.epoch_) { steal(other); }

WaiterList& WaiterList::operator=(WaiterList&& other) noexcept {
    if (this == &other) return *this;
    release_entries();
    id_ = other.id_;
    epoch_ = other.epoch_;
    steal(other);
    return *this;
}

WaiterList::~WaiterList() { release_entries(); }

void WaiterList::steal(WaiterList& other) noexcept {
    if (other.data_ == other.inline_) {
        std::copy(other.inline_, other.inline_ + other.len_, inline_);
        data_ = inline_;
        capacity_ = inline_capacity;
    } else {
        data_ = other.data_;
        capacity_ = other.capacity_;
    }
    len_ = other.len_;
    cursor_ = 0;
    other.data_ = other.inline_;
    other.capacity_ = inline_capacity;
    other.len_ = 0;
    other.cursor_ = 0;
    // The moved-from list lost its entries without a drain of its id: it must never
    // answer from records of that id again, so it tracks nothing from now on.
    other.id_ = 0;
    other.epoch_ = 0;
}

void WaiterList::release_entries() noexcept {
    for (std::uint32_t i = 0; i < len_; ++i) data_[i]->release_weak();
    if (data_ != inline_) ::operator delete(data_);
    data_ = inline_;
    capacity_ = inline_capacity;
    len_ = 0;
    cursor_ = 0;
}

void WaiterList::add(const Waiter& waiter) {
    if (waiter.is_noop()) return;
    detail::Identity& identity = waiter.identity();
    const detail::Presence presence = id_ == 0 ? detail::Presence::unknown : identity.presume(id_, epoch_);
    switch (presence) {
        case detail::Presence::present: return;
        case detail::Presence::absent: break;
        case detail::Presence::unknown:
            if (!identity.registered_nowhere()) {
                for (std::uint32_t i = 0; i < len_; ++i)
                    if (data_[i]->id() == identity.id()) {
                        // No record said so (evicted past the lists an identity keeps
                        // records of, or an untracked list): the scan found it (K4).
                        MOQ_PROBE("waiters.add.found_by_scan");
                        return;
                    }
            }
            break;
    }
    try {
        append(identity);
        // Registered: the list holds at least this entry, within its slots.
        MOQ_ASSERT(!empty());
        MOQ_ASSERT_LE(len_, capacity_);
    } catch (...) {
        // Not added (growing the list failed): the record presume made must not claim
        // a presence that never happened, or the next registration would be skipped
        // and its wake lost.
        if (id_ != 0) identity.forget(id_);
        throw;
    }
}

void WaiterList::append(detail::Identity& identity) {
    // Reclaim a dead slot or two in passing, so waiters that register and leave
    // without a wake cannot grow the list without bound.
    const std::uint32_t probes = std::min<std::uint32_t>(len_, 2);
    for (std::uint32_t probe = 0; probe < probes; ++probe) {
        MOQ_ASSERT_LT(cursor_, len_);
        detail::Identity*& slot = data_[cursor_];
        if (!slot->alive()) {
            MOQ_PROBE("waiters.append.dead_slot_reclaimed");
            identity.retain_weak();
            slot->release_weak();
            slot = &identity;
            return;
        }
        cursor_ = (cursor_ + 1) % len_;
    }
    push(identity);
}

void WaiterList::push(detail::Identity& identity) {
    if (len_ == capacity_) {
        MOQ_PROBE("waiters.push.capacity_grown");
        // Past the inline slots once more: the spilled list itself doubles.
        MOQ_SOMETIMES("waiters.push.spilled_list_grown", data_ != inline_);
        // Doubling stays within the 32-bit count.
        MOQ_ASSERT_LE(capacity_, std::numeric_limits<std::uint32_t>::max() / 2);
        const std::uint32_t grown = capacity_ * 2;
        auto** bigger = static_cast<detail::Identity**>(::operator new(grown * sizeof(detail::Identity*)));
        std::copy(data_, data_ + len_, bigger);
        if (data_ != inline_) ::operator delete(data_);
        data_ = bigger;
        capacity_ = grown;
    }
    MOQ_ASSERT_LT(len_, capacity_);
    identity.retain_weak();
    data_[len_++] = &identity;
}

WaiterList WaiterList::take() {
    // Every drain bumps the epoch, so each identity's record of this list goes stale.
    MOQ_ASSERT_LT(epoch_, std::numeric_limits<std::uint64_t>::max());
    if (MOQ_SITE("waiters.take.retire_records", register_input)) ++epoch_;
    WaiterList snapshot{Untracked{}};
    const std::uint64_t id = id_;
    const std::uint64_t epoch = epoch_;
    snapshot.steal(*this);
    MOQ_ASSERT_EQ(len_, 0u);
    id_ = id;  // a drain keeps the list's identity; the epoch bump above retires records
    epoch_ = epoch;
    return snapshot;
}

void WaiterList::wake() {
    WaiterList drained = take();
    // A snapshot tracks nothing: no record can claim presence in it.
    MOQ_ASSERT_EQ(drained.id_, 0u);
    for (std::uint32_t i = 0; i < drained.len_; ++i) {
        detail::Identity* identity = drained.data_[i];
        if (!identity->try_upgrade()) {
            // Its waiter went without a wake: a dead entry is never woken (K6, K7).
            MOQ_PROBE("waiters.wake.dead_entry_skipped");
            continue;
        }
        // The list is drained already: a task that runs here and registers again joins
        // it anew, and this wake still reaches it.
        schedule_point("wake.list.entry");
        if (MOQ_SITE("waiters.wake.notify", notify)) identity->waker().wake();
        identity->release_strong();
    }
}

std::size_t WaiterList::live() const noexcept {
    std::size_t count = 0;
    for (std::uint32_t i = 0; i < len_; ++i) count += data_[i]->alive() ? 1 : 0;
    return count;
}

bool WaiterList::contains(const Waiter& waiter) const noexcept {
    if (waiter.is_noop() || !waiter.has_identity()) return false;
    const std::uint64_t id = waiter.identity().id();
    for (std::uint32_t i = 0; i < len_; ++i)
        if (data_[i]->id() == id) return true;
    return false;
}

}  // namespace moq::kio
