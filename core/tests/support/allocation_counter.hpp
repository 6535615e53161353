// Counts heap allocations made by this thread, to show a path allocates nothing.
#pragma once

#include <cstddef>

namespace moq::test {

std::size_t allocations_on_this_thread();

class AllocationScope {
public:
    AllocationScope() : start_(allocations_on_this_thread()) {}
    [[nodiscard]] std::size_t count() const { return allocations_on_this_thread() - start_; }

private:
    std::size_t start_;
};

}  // namespace moq::test
