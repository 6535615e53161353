// What a poll takes: the task's waker plus a lazily created shared identity that the
// waiter lists it joins reference weakly. Dropping the last handle to a waiter is its
// deregistration: its list entries go dead and are reclaimed in passing.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>

#include "kio/waker.hpp"

namespace moq::kio {

class WaiterList;

namespace detail {

// Serials of waiters: one per waiter built from a waker, shared by its clones. 0 is
// a waiter that holds no waker (moved from).
inline std::atomic<std::uint64_t> next_waiter_serial{1};

// How many (list id, epoch) records an identity keeps. The cap bounds memory, never
// correctness: a poll that visits more lists falls back to a scan.
inline constexpr int recorded_lists = 8;

enum class Presence { present, absent, unknown };

// The shared part of a waiter. Reference counted by hand so that a list entry (a weak
// reference) pins the allocation, and so "registered nowhere" is one atomic load.
class Identity {
public:
    explicit Identity(Waker waker);

    // One strong reference per Waiter handle; one weak reference per list entry, plus
    // one held jointly by all strong references.
    void retain_strong() noexcept { strong_.fetch_add(1, std::memory_order_relaxed); }
    void release_strong() noexcept;
    void retain_weak() noexcept { weak_.fetch_add(1, std::memory_order_relaxed); }
    void release_weak() noexcept;
    // Takes a strong reference if the owner is still alive.
    [[nodiscard]] bool try_upgrade() noexcept;
    [[nodiscard]] bool alive() const noexcept { return strong_.load(std::memory_order_acquire) != 0; }
    // No list entry references this identity anywhere.
    [[nodiscard]] bool registered_nowhere() const noexcept { return weak_.load(std::memory_order_acquire) == 1; }

    [[nodiscard]] std::uint64_t id() const noexcept { return id_; }
    [[nodiscard]] const Waker& waker() const noexcept { return waker_; }

    // Answers whether this identity is still in list `list_id` at `epoch`, and records
    // that it is about to be (every path out of registration leaves it registered).
    Presence presume(std::uint64_t list_id, std::uint64_t epoch);
    // Drops the record of list `list_id`, whose registration presume announced failed.
    void forget(std::uint64_t list_id) noexcept;

private:
    struct Record {
        std::uint64_t list_id = 0;
        std::uint64_t epoch = 0;
    };

    std::atomic<std::uint32_t> strong_{1};
    std::atomic<std::uint32_t> weak_{1};
    const std::uint64_t id_;
    Waker waker_;
    std::mutex records_mutex_;
    Record records_[recorded_lists];
    int records_used_ = 0;
    std::uint64_t eviction_seed_ = 0;
};

}  // namespace detail

class Waiter {
public:
    explicit Waiter(Waker waker) noexcept
        : waker_(std::move(waker)), serial_(detail::next_waiter_serial.fetch_add(1, std::memory_order_relaxed)) {}

    // A waiter that registers nothing at all: no identity, no list slot.
    static Waiter noop() noexcept {
        Waiter waiter{Waker()};
        waiter.noop_ = true;
        return waiter;
    }

    // Clones share one identity, so registrations made through any clone live until
    // every clone is gone.
    Waiter(const Waiter& other);
    Waiter(Waiter&& other) noexcept;
    Waiter& operator=(const Waiter&) = delete;
    Waiter& operator=(Waiter&&) = delete;
    ~Waiter();

    [[nodiscard]] const Waker& waker() const noexcept { return waker_; }
    // Equal serials mean one waiter and its clones, so the same waker: a cheaper test
    // than will_wake for a poller that keeps its waiter (a Park does). Different serials
    // say nothing.
    [[nodiscard]] std::uint64_t serial() const noexcept { return serial_; }
    [[nodiscard]] bool is_noop() const noexcept { return noop_; }
    [[nodiscard]] bool has_identity() const noexcept { return identity_.load(std::memory_order_acquire) != nullptr; }

    // Joins `list` (idempotent per identity). The caller holds the lock `list` lives under.
    void register_on(WaiterList& list) const;

    // The identity, created on first use. Never called on a noop waiter.
    detail::Identity& identity() const;

private:
    Waker waker_;
    std::uint64_t serial_;
    mutable std::atomic<detail::Identity*> identity_{nullptr};
    bool noop_ = false;
};

// A shared waiter that registers nothing, for probes that want no wake.
const Waiter& noop_waiter();

}  // namespace moq::kio
