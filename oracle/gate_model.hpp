// The idle gate's reference model, written from the I rules of the spec: one reader
// over one watched value. It learns the writer's operations (a write that wakes, a quiet
// write, a bare notify), the reader's own target changes, what each walk of the reader
// saw, and what each read answered, and says when the gate may answer Pending without
// walking (I1: only while the reader owes no look) and whether a reader parked at
// quiescence was owed a wake (I4).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace moq::oracle {

class GateModel {
public:
    // The writer: told before the real write, and `delivered` once it returned. While
    // a write's wakes are being delivered, the reader may be polled at once (inline)
    // through another of its registrations before the gate's own wake reaches the gate.
    void written(int value, bool wakes) {
        value_ = value;
        if (wakes) ++notifies_;
    }
    void notified() { ++notifies_; }
    void delivered() { delivered_notifies_ = notifies_; }
    // A write's wakes are still being delivered.
    [[nodiscard]] bool delivering() const { return delivered_notifies_ != notifies_; }

    // The reader's own change (I5: a disarm point).
    void target_changed(int target) { target_ = target; }
    // A walk's look at the cell, under its lock: what it saw. A violation if the value
    // is not the model's.
    std::optional<std::string> looked(int held);
    // A Ready read: the next read waits for a higher value.
    void read(int value) { target_ = value + 1; }

    // The gate answered Pending without walking.
    [[nodiscard]] std::optional<std::string> idle_answer() const;
    // With no task runnable and no deadline pending.
    [[nodiscard]] std::optional<std::string> quiescent() const;

private:
    // The reader owes a look: its input was written (with a wake) or its target changed
    // since its last look, or it never looked.
    [[nodiscard]] bool owed() const;
    // Owed a look by what is settled: not by a write whose wakes are still on their way.
    [[nodiscard]] bool owed_settled() const;
    [[nodiscard]] std::string owed_reason() const;

    int value_ = 0;
    std::uint64_t notifies_ = 0;
    std::uint64_t delivered_notifies_ = 0;  // notifies whose write returned
    int target_ = 1;
    bool looked_ = false;
    int seen_target_ = 0;
    std::uint64_t seen_notifies_ = 0;
};

}  // namespace moq::oracle
