#include "support/allocation_counter.hpp"

#include <cstdlib>
#include <new>

namespace {
thread_local std::size_t allocation_count = 0;
thread_local std::size_t free_count = 0;
thread_local std::size_t failures_armed = 0;
}  // namespace

namespace moq::test {
std::size_t allocations_on_this_thread() { return allocation_count; }
std::size_t frees_on_this_thread() { return free_count; }
void fail_next_allocations(std::size_t count) { failures_armed = count; }
}  // namespace moq::test

void* operator new(std::size_t size) {
    ++allocation_count;
    if (failures_armed > 0) {
        --failures_armed;
        throw std::bad_alloc();
    }
    if (void* block = std::malloc(size == 0 ? 1 : size)) return block;
    throw std::bad_alloc();
}
void operator delete(void* block) noexcept {
    if (block != nullptr) ++free_count;
    std::free(block);
}
void operator delete(void* block, std::size_t) noexcept { operator delete(block); }
