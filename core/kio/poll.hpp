// The answer of a poll: Ready with a value, or Pending (the waiter is registered on
// every input whose change could turn the same poll Ready).
#pragma once

#include <optional>
#include <utility>

#include "util/assert.hpp"

namespace moq::kio {

template <class T>
class Poll {
public:
    static Poll pending() { return Poll(); }
    Poll(T value) : value_(std::move(value)) {}  // NOLINT: implicit Ready, like Rust's Into

    [[nodiscard]] bool is_ready() const { return value_.has_value(); }
    [[nodiscard]] bool is_pending() const { return !value_.has_value(); }

    T& value() & {
        MOQ_ASSERT(value_.has_value());
        return *value_;
    }
    const T& value() const& {
        MOQ_ASSERT(value_.has_value());
        return *value_;
    }
    T&& value() && {
        MOQ_ASSERT(value_.has_value());
        return std::move(*value_);
    }

private:
    // User-provided, so a Pending answer does not zero the storage of a large T.
    Poll() {}  // NOLINT(modernize-use-equals-default)
    std::optional<T> value_;
};

// The unit answer, for polls that only say "now".
struct Done {
    friend bool operator==(Done, Done) = default;
};

}  // namespace moq::kio
