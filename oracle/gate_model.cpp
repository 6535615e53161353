#include "oracle/gate_model.hpp"

namespace moq::oracle {

std::optional<std::string> GateModel::looked(int held) {
    looked_ = true;
    seen_target_ = target_;
    seen_notifies_ = notifies_;
    if (held != value_) return "I2: the walk saw " + std::to_string(held) + ", the model " + std::to_string(value_);
    return std::nullopt;
}

bool GateModel::owed() const { return !looked_ || seen_notifies_ != notifies_ || seen_target_ != target_; }

bool GateModel::owed_settled() const {
    return !looked_ || seen_notifies_ < delivered_notifies_ || seen_target_ != target_;
}

std::string GateModel::owed_reason() const {
    if (!looked_) return "it never looked";
    if (seen_target_ != target_) return "its target changed since its last look";
    return "a write woke its inputs since its last look";
}

std::optional<std::string> GateModel::idle_answer() const {
    // I4: a write still delivering its wakes fires the gate before it returns.
    if (!owed_settled()) return std::nullopt;
    const std::string rule = looked_ && seen_target_ != target_ ? "I5" : "I1";
    return rule + ": the gate answered Pending without walking although " + owed_reason();
}

std::optional<std::string> GateModel::quiescent() const {
    if (!owed() || value_ < target_) return std::nullopt;
    return "I4: missed wake: the reader is parked with the value at " + std::to_string(value_) + " and its target at " +
           std::to_string(target_) + " (" + owed_reason() + ")";
}

}  // namespace moq::oracle
