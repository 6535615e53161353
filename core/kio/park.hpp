// Keeps a waiter alive between polls so its registrations survive the poll that made
// them. Reuses the held waiter while the same task polls; a new task gets a new one.
#pragma once

#include <optional>

#include "kio/waiter.hpp"
#include "util/assert.hpp"
#include "util/probe.hpp"

namespace moq::kio {

namespace detail {

// The waker of a Park that holds nothing: its vtable is no task's, so no waker a task
// passes will_wake it, and its functions do nothing.
inline void* unheld_clone(void* data) { return data; }
inline void unheld_wake(void*) {}
inline void unheld_drop(void*) {}
inline constexpr WakerVtable unheld_vtable{&unheld_clone, &unheld_wake, &unheld_drop};

}  // namespace detail

class Park {
public:
    Park() noexcept { held_.emplace(unheld()); }
    explicit Park(Waiter waiter) { held_.emplace(std::move(waiter)); }

    // A registration belongs to the handle that parked it: a copy starts empty.
    Park(const Park&) noexcept : Park() {}
    Park& operator=(const Park& other) noexcept {
        if (this != &other) release();
        return *this;
    }

    // The waiter for this poll. Call before the poll body, so an early return still
    // leaves the registrations alive. The slot always holds a waiter (the unheld one
    // when none is), so the common case, a task re-polled by its own waker, is one
    // will_wake and nothing else.
    const Waiter& hold(const Waker& waker) {
        if (!held_->waker().will_wake(waker)) [[unlikely]]
            return hold_new(waker);
        return *held_;
    }

    [[nodiscard]] const Waiter* held() const noexcept {
        return held_->waker().vtable() == &detail::unheld_vtable ? nullptr : &*held_;
    }
    // Drops the held waiter, and so every registration it made.
    void release() noexcept { replace(unheld()); }

private:
    static Waker unheld() noexcept { return Waker(&detail::unheld_vtable, nullptr); }

    // Out of line: the caller's fast path stays one compare and keeps few registers.
    [[gnu::noinline]] const Waiter& hold_new(const Waker& waker) {
        // Another task polls: the waiter held for the last one is retired (K9, W6).
        MOQ_SOMETIMES("park.hold.retired_other_task", held_->waker().vtable() != &detail::unheld_vtable);
        replace(waker);
        // The next poll by this task takes the fast path.
        MOQ_ASSERT(held_->waker().will_wake(waker));
        return *held_;
    }
    void replace(const Waker& waker) noexcept {
        // Dropping the old waiter kills its entries; lists reclaim those slots.
        held_.reset();
        held_.emplace(waker);
    }

    std::optional<Waiter> held_;  // never empty between calls
};

}  // namespace moq::kio
