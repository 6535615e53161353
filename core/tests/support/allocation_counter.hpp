// Counts heap allocations made by this thread, to show a path allocates nothing, and
// makes the next ones fail, to show a path survives running out of memory.
#pragma once

#include <cstddef>

namespace moq::test {

std::size_t allocations_on_this_thread();
// Blocks this thread gave back (operator delete of a non-null pointer).
std::size_t frees_on_this_thread();
// The next `count` allocations of this thread throw std::bad_alloc (0: none).
void fail_next_allocations(std::size_t count);

// Allocations of this thread fail while it lives: the first `count` of them.
class FailingAllocations {
public:
    explicit FailingAllocations(std::size_t count = 1) { fail_next_allocations(count); }
    ~FailingAllocations() { fail_next_allocations(0); }
    FailingAllocations(const FailingAllocations&) = delete;
    FailingAllocations& operator=(const FailingAllocations&) = delete;
};

class AllocationScope {
public:
    AllocationScope() : start_(allocations_on_this_thread()), freed_start_(frees_on_this_thread()) {}
    [[nodiscard]] std::size_t count() const { return allocations_on_this_thread() - start_; }
    // Blocks allocated since the scope began and not freed yet (a leak if the code that
    // made them is gone).
    [[nodiscard]] std::ptrdiff_t live() const {
        return static_cast<std::ptrdiff_t>(count()) -
               static_cast<std::ptrdiff_t>(frees_on_this_thread() - freed_start_);
    }

private:
    std::size_t start_;
    std::size_t freed_start_;
};

}  // namespace moq::test
