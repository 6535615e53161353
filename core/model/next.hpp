// What a read hands out once it is Ready: an item, the clean end, or an error.
#pragma once

#include <ostream>
#include <utility>
#include <variant>

#include "model/error.hpp"
#include "util/assert.hpp"

namespace moq::model {

struct End {
    friend bool operator==(End, End) = default;
};

template <class T>
class Next {
public:
    Next(T item) : value_(std::in_place_index<0>, std::move(item)) {}  // NOLINT: implicit
    Next(End) : value_(std::in_place_index<1>) {}                      // NOLINT: implicit
    Next(Error error) : value_(std::in_place_index<2>, error) {}       // NOLINT: implicit

    [[nodiscard]] bool is_item() const { return value_.index() == 0; }
    [[nodiscard]] bool is_end() const { return value_.index() == 1; }
    [[nodiscard]] bool is_error() const { return value_.index() == 2; }

    T& item() {
        MOQ_ASSERT(is_item());
        return std::get<0>(value_);
    }
    const T& item() const {
        MOQ_ASSERT(is_item());
        return std::get<0>(value_);
    }
    [[nodiscard]] Error error() const {
        MOQ_ASSERT(is_error());
        return std::get<2>(value_);
    }

private:
    std::variant<T, End, Error> value_;
};

}  // namespace moq::model
