// What a group read consults when its copy fails or stalls: the reader's budget (its
// preferences) and the route, which may offer a replacement copy of the same group.
#pragma once

#include <memory>
#include <optional>
#include <variant>

#include "kio/poll.hpp"
#include "kio/waiter.hpp"
#include "model/error.hpp"
#include "model/group_state.hpp"

namespace moq::model {

class Expiry;

// The same group from another copy, to continue at the same frame index.
struct Replacement {
    GroupCell cell;
    std::shared_ptr<Expiry> expiry;  // measured against the new copy, or null
    std::uint64_t generation = 0;
};

class Recover {
public:
    virtual ~Recover() = default;

    // The reader's current budget; registers on its preferences.
    virtual std::optional<kio::Duration> poll_budget(const kio::Waiter& waiter) = 0;
    // Whether to look past the current copy: yes on a route failure; on a stall or a
    // verdict only if the route moved on. Registers on the route.
    virtual bool wants(std::optional<Error> failed, const kio::Waiter& waiter) = 0;
    // The replacement to continue from, an error that ends the group, or Pending.
    virtual kio::Poll<std::variant<Replacement, Error>> poll(std::size_t index, std::optional<Error> failed,
                                                             const kio::Waiter& waiter) = 0;
    // Commits to a replacement once the caller has taken it.
    virtual void adopt(const Replacement& replacement) = 0;
    [[nodiscard]] virtual std::unique_ptr<Recover> clone() const = 0;

protected:
    // Copied only by a derived class's clone(), never sliced through the base.
    Recover() = default;
    Recover(const Recover&) = default;
    Recover& operator=(const Recover&) = default;
};

}  // namespace moq::model
