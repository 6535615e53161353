#include "kio/deadline.hpp"

namespace moq::kio {

Poll<Done> Deadline::poll(const Waiter& waiter) const {
    if (!at_) return Poll<Done>::pending();
    if (clock_->now() >= *at_) return Done{};
    clock_->wake_at(*at_, waiter);
    return Poll<Done>::pending();
}

}  // namespace moq::kio
