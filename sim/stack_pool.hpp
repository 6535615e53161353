// Fiber stacks kept for the next task on this thread. A sweep runs thousands of short
// executors one after another; a fresh stack for each task cost the kernel a new mapping
// and zeroed pages every time (more system time than the whole run's user time). Kept
// stacks are reused as they are: a task's frames are gone once it returned or unwound.
// Builds with a sanitizer take a fresh stack each time, so a stale stack is never reused
// unseen.
#pragma once

#include <cstddef>

#include <boost/context/stack_context.hpp>

namespace moq::sim::stack_pool {

boost::context::stack_context allocate(std::size_t size);
void deallocate(boost::context::stack_context& context) noexcept;

}  // namespace moq::sim::stack_pool
