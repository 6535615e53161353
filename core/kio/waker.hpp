// A copyable, type-erased handle to a task: what a poll is given so the task can be
// run again. Executors make wakers; the core only copies, compares and wakes them.
#pragma once

#include <utility>

#include "kio/core_lock.hpp"

namespace moq::kio {

// The table of operations behind one kind of waker. `clone` returns the data pointer
// for a new handle (usually after taking a reference); `drop` releases one handle.
struct WakerVtable {
    void* (*clone)(void* data);
    void (*wake)(void* data);
    void (*drop)(void* data);
};

class Waker {
public:
    // A waker that wakes nothing.
    Waker() noexcept = default;

    // Takes ownership of one reference to `data`.
    Waker(const WakerVtable* vtable, void* data) noexcept : vtable_(vtable), data_(data) {}

    Waker(const Waker& other) noexcept
        : vtable_(other.vtable_), data_(other.vtable_ ? other.vtable_->clone(other.data_) : nullptr) {}

    Waker(Waker&& other) noexcept
        : vtable_(std::exchange(other.vtable_, nullptr)), data_(std::exchange(other.data_, nullptr)) {}

    Waker& operator=(Waker other) noexcept {
        swap(other);
        return *this;
    }

    ~Waker() {
        if (vtable_) vtable_->drop(data_);
    }

    void swap(Waker& other) noexcept {
        std::swap(vtable_, other.vtable_);
        std::swap(data_, other.data_);
    }

    // Schedules the task, or runs its poll right away (an executor may). Safe from any
    // thread; never called under a core lock, which a build with assertions checks.
    void wake(const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
        assert_no_core_lock("a waker ran", CodePlace{file, line});
        if (vtable_) vtable_->wake(data_);
    }

    // True when both handles certainly wake the same task. False negatives are safe
    // (a parked waiter is retired and rebuilt); false positives would misroute wakes.
    [[nodiscard]] bool will_wake(const Waker& other) const noexcept {
        return vtable_ == other.vtable_ && data_ == other.data_;
    }

    [[nodiscard]] bool is_noop() const noexcept { return vtable_ == nullptr; }

    [[nodiscard]] const WakerVtable* vtable() const noexcept { return vtable_; }
    [[nodiscard]] void* data() const noexcept { return data_; }

private:
    const WakerVtable* vtable_ = nullptr;
    void* data_ = nullptr;
};

}  // namespace moq::kio
