// The waiters parked on one input. Always used under the lock of the state it lives
// in: registration and the check it follows happen under that same lock, and a change
// takes the list out under the lock and wakes it after unlocking.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kio/waiter.hpp"

namespace moq::kio {

class WaiterList {
public:
    // Waiters held without a heap allocation. Enough for the common fan-in of a cell,
    // and every list pays for these slots whether or not anything parks.
    static constexpr std::size_t inline_capacity = 4;

    WaiterList();
    // An empty list that tracks nothing, to receive a take() without claiming an id.
    [[nodiscard]] static WaiterList untracked() noexcept { return WaiterList(Untracked{}); }
    WaiterList(WaiterList&& other) noexcept;
    WaiterList& operator=(WaiterList&& other) noexcept;
    WaiterList(const WaiterList&) = delete;
    WaiterList& operator=(const WaiterList&) = delete;
    ~WaiterList();

    // Adds `waiter` unless its identity is already here. O(1) in the steady states
    // (re-poll while still registered, re-register after a drain).
    void add(const Waiter& waiter);

    // Moves every entry out, to be woken after the caller unlocks.
    [[nodiscard]] WaiterList take();

    // Drains the list and wakes every live entry. Calls wakers inline: only for a
    // list nobody else can reach, such as one returned by take().
    void wake();

    // Entries, live or dead.
    [[nodiscard]] std::size_t size() const noexcept { return len_; }
    [[nodiscard]] bool empty() const noexcept { return len_ == 0; }
    [[nodiscard]] std::size_t live() const noexcept;
    [[nodiscard]] bool spilled() const noexcept { return data_ != inline_; }
    [[nodiscard]] bool contains(const Waiter& waiter) const noexcept;
    [[nodiscard]] std::uint64_t id() const noexcept { return id_; }
    [[nodiscard]] std::uint64_t epoch() const noexcept { return epoch_; }

private:
    struct Untracked {};
    explicit WaiterList(Untracked) noexcept;

    void append(detail::Identity& identity);
    void push(detail::Identity& identity);
    void release_entries() noexcept;
    void steal(WaiterList& other) noexcept;

    detail::Identity* inline_[inline_capacity] = {};
    detail::Identity** data_ = inline_;  // each entry holds one weak reference
    std::uint32_t len_ = 0;
    std::uint32_t capacity_ = inline_capacity;
    std::uint32_t cursor_ = 0;
    std::uint64_t id_ = 0;  // 0: an untracked snapshot, never issued to a live list
    std::uint64_t epoch_ = 0;
};

}  // namespace moq::kio
