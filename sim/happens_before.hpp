// Happens-before over a simulated run, as the C++ memory model builds it from the
// operations of code built with sync points (core/kio/sync.hpp). The simulator runs one
// task at a time, so every load reads the newest store: what it cannot show by itself is
// whether the orders the code asked for would make a write visible on real threads. This
// answers that, with a vector clock per task and, per atomic or lock, the clock its
// release sequence carries:
// - an acquire load (or lock) joins the object's clock into the task's;
// - a release store (or unlock) sets the object's clock to the task's; a relaxed store
//   empties it (it ends the release sequence, C++20 [intro.races]);
// - a read-modify-write acquires and releases as its order says, and a relaxed one leaves
//   the object's clock as it was (it continues the release sequence);
// - a spawn passes the parent's clock to the child, and a wake through the simulator's
//   own waker passes the waker's to the woken task (as a semaphore does).
// A task's own entry counts its releases, so a write stamped before a release is seen by
// whoever acquires that release, and one stamped after it is not.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "kio/sync.hpp"

namespace moq::sim {

// A moment of one task: what it wrote up to there is visible to a task whose clock holds
// at least `epoch` for it.
struct Stamp {
    std::uint32_t task = 0;
    std::uint32_t epoch = 0;
};

class HappensBefore {
public:
    // A task begins; `parent` is the task that spawned it, if one did.
    void spawned(std::optional<std::uint32_t> parent, std::uint32_t child);
    void ordered(std::uint32_t task, const void* object, kio::SyncAccess access, std::memory_order order);
    // `waker` woke `woken` through the simulator: what `waker` did so far happens before
    // what `woken` does next.
    void woke(std::uint32_t waker, std::uint32_t woken);
    // Whether every operation on `object` so far happens before `task`'s next step (a free
    // of what the object counts must).
    [[nodiscard]] bool after_every_use(std::uint32_t task, const void* object);

    [[nodiscard]] Stamp stamp(std::uint32_t task) const;
    // Whether what `stamp`'s task did up to it happens before `task`'s next step.
    [[nodiscard]] bool saw(std::uint32_t task, Stamp stamp) const;

private:
    using Clock = std::vector<std::uint32_t>;
    struct Carried {
        const void* object = nullptr;
        Clock released;  // what its release sequence carries
        Clock used;      // every task's moment at each operation on it
    };
    Clock& clock_of(std::uint32_t task);
    Carried& carried_by(const void* object);
    // `task` publishes its clock: `into` becomes (or joins) it, and the task moves past it.
    void release(std::uint32_t task, Clock& into, bool join);
    static void join(Clock& into, const Clock& from);

    std::vector<Clock> tasks_;
    std::vector<Carried> objects_;  // few: looked up in order
};

}  // namespace moq::sim
