// A read that parks through an idle gate: the gate check, the walk counter, and the
// gate's lazy set-up, shared by every gated reader of the model.
#pragma once

#include <memory>
#include <utility>

#include "kio/waiter.hpp"
#include "model/idle.hpp"
#include "util/assert.hpp"
#include "util/probe.hpp"

namespace moq::model {

// The key of a gate that serves one kind of walk: a group's frame reads, and each walk
// order of a resume reader (one gate per order), so the idle path compares no key.
struct OneWalk {
    friend bool operator==(OneWalk, OneWalk) { return true; }
};

template <class K>
class GatedRead {
public:
    // The gate is set up, unarmed, once the read has parked `parks_before_gate` times in
    // a row; the next walk runs through it and arms it. A read woken by its own input
    // each time never parks twice in a row, and never pays for a gate.
    explicit GatedRead(int parks_before_gate) : parks_before_gate_(parks_before_gate) {}
    // A moved-from read points at the never-armed block again, as before its set-up.
    GatedRead(GatedRead&& other) noexcept
        : gate_(std::move(other.gate_)),
          shared_(std::exchange(other.shared_, &detail::IdleShared::never_armed)),
          parks_before_gate_(other.parks_before_gate_),
          parks_in_a_row_(other.parks_in_a_row_),
          counter_(other.counter_) {}
    GatedRead& operator=(GatedRead&& other) noexcept {
        gate_ = std::move(other.gate_);
        shared_ = std::exchange(other.shared_, &detail::IdleShared::never_armed);
        parks_before_gate_ = other.parks_before_gate_;
        parks_in_a_row_ = other.parks_in_a_row_;
        counter_ = other.counter_;
        return *this;
    }

    // The idle path: true (and counted) when the gate is parked for this task and key,
    // so the read answers Pending without walking. Inline, so a caller can check it
    // before calling into its out-of-line walk. `check` is a mutation switch.
    bool answer_parked(const kio::Waiter& waiter, const K& key, bool check) {
        if (!check || !parked(waiter, key)) return false;
        ++counter_.idle_answers;
        return true;
    }

    // A full walk: runs `walk` with the waiter to register on every input, and arms the
    // gate iff it answered Pending with nothing fired. `set_up` is a mutation switch.
    template <class Walk>
    auto walk(const kio::Waiter& waiter, const K& key, bool set_up, Walk&& walk) -> decltype(walk(waiter)) {
        using Answer = decltype(walk(waiter));
        ++counter_.walks;
        const bool had_gate = gate_ != nullptr;
        const kio::Waiter& through = had_gate ? gate_->start(waiter, key) : waiter;
        Answer answer = std::forward<Walk>(walk)(through);
        const bool pending = answer.is_pending();
        if (had_gate) {
            // The gate is the one the walk started through: a read never drops its gate.
            MOQ_ASSERT(gate_ && gate_->walking());
            gate_->finish(pending);
        }
        if (!pending) {
            parks_in_a_row_ = 0;
        } else if (++parks_in_a_row_ >= parks_before_gate_ && !had_gate && set_up) {
            // Parked N times in a row: the gate is made now, unarmed (I8).
            MOQ_PROBE("gated.setup.gate_made");
            gate_ = std::make_unique<Idle<K>>();
            shared_ = &gate_->shared();
        }
        // The idle path's pointer is the gate's block once set up, the never-armed one
        // before; a Ready walk leaves the gate unarmed.
        MOQ_ASSERT(gate_ ? shared_ == &gate_->shared() : shared_ == &detail::IdleShared::never_armed);
        MOQ_ASSERT(pending || !armed());
        return answer;
    }

    // True when a read by this task would answer Pending without walking: Idle::parked,
    // reading the gate's shared block through a pointer of its own, which before the
    // set-up is a block never armed. So the idle path tests no pointer and loads one
    // less, and a key with one value reads no gate at all.
    [[nodiscard]] bool parked(const kio::Waiter& waiter, const K& key) const {
        return shared_->parked(waiter) && gate_->key() == key;
    }
    void disarm() {
        if (!gate_) return;
        // The reader's own change disarms a gate that would have answered without walking (I5, W4).
        MOQ_SOMETIMES("gated.disarm.armed_gate", gate_->armed());
        gate_->disarm();
        // Only the owner arms its gate, and a wake only marks it fired: no arm can come
        // between the disarm and here.
        MOQ_ASSERT(!gate_->armed());
    }
    [[nodiscard]] bool has_gate() const { return gate_ != nullptr; }
    // Between a walk's start and its finish.
    [[nodiscard]] bool walking() const { return gate_ && gate_->walking(); }
    [[nodiscard]] bool armed() const { return gate_ && gate_->armed(); }
    [[nodiscard]] const WalkCounter& counter() const { return counter_; }

private:
    std::unique_ptr<Idle<K>> gate_;                                        // set up lazily
    const detail::IdleShared* shared_ = &detail::IdleShared::never_armed;  // gate_->shared() once set up
    int parks_before_gate_;
    int parks_in_a_row_ = 0;
    WalkCounter counter_;
};

}  // namespace moq::model
