// A waker that counts its wakes, and can run a hook on each (to re-enter the code
// that woke it). The counter outlives every waker made from it.
#pragma once

#include <atomic>
#include <functional>

#include "kio/waker.hpp"

namespace moq::test {

class WakeCounter {
public:
    kio::Waker waker() { return kio::Waker(&vtable, this); }
    [[nodiscard]] int wakes() const { return wakes_.load(); }
    void reset() { wakes_.store(0); }
    // Runs inside every wake, on the waking thread.
    std::function<void()> on_wake;

private:
    static void* clone(void* data) { return data; }
    static void wake(void* data) {
        auto* self = static_cast<WakeCounter*>(data);
        self->wakes_.fetch_add(1);
        if (self->on_wake) self->on_wake();
    }
    static void drop(void*) {}
    static constexpr kio::WakerVtable vtable{&clone, &wake, &drop};

    std::atomic<int> wakes_{0};
};

}  // namespace moq::test
