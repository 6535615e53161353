// A read that parks through an idle gate: the gate check, the walk counter, and the
// gate's lazy set-up, shared by every gated reader of the model.
#pragma once

#include <memory>
#include <utility>

#include "kio/waiter.hpp"
#include "model/idle.hpp"
#include "util/assert.hpp"

namespace moq::model {

template <class K>
class GatedRead {
public:
    // The gate is set up, unarmed, once the read has parked `parks_before_gate` times in
    // a row; the next walk runs through it and arms it. A read woken by its own input
    // each time never parks twice in a row, and never pays for a gate.
    explicit GatedRead(int parks_before_gate) : parks_before_gate_(parks_before_gate) {}
    GatedRead(GatedRead&&) noexcept = default;
    GatedRead& operator=(GatedRead&&) noexcept = default;

    // The idle path: true (and counted) when the gate is parked for this task and key,
    // so the read answers Pending without walking. Inline, so a caller can check it
    // before calling into its out-of-line walk. `check` is a mutation switch.
    bool answer_parked(const kio::Waiter& waiter, const K& key, bool check) {
        if (!gate_ || !check || !gate_->parked(waiter, key)) return false;
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
        } else if (++parks_in_a_row_ >= parks_before_gate_ && !gate_ && set_up) {
            gate_ = std::make_unique<Idle<K>>();
        }
        return answer;
    }

    // True when a read by this task would answer Pending without walking.
    [[nodiscard]] bool parked(const kio::Waiter& waiter, const K& key) const {
        return gate_ && gate_->parked(waiter, key);
    }
    void disarm() {
        if (gate_) gate_->disarm();
    }
    [[nodiscard]] bool has_gate() const { return gate_ != nullptr; }
    [[nodiscard]] bool armed() const { return gate_ && gate_->armed(); }
    [[nodiscard]] const WalkCounter& counter() const { return counter_; }

private:
    std::unique_ptr<Idle<K>> gate_;
    int parks_before_gate_;
    int parks_in_a_row_ = 0;
    WalkCounter counter_;
};

}  // namespace moq::model
