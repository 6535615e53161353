#include "runtime/thread_pool.hpp"

namespace moq::runtime {
MOQ_RUNTIME_BUILD_BEGIN

// The pool as it ships, built once here.
template class BasicThreadPool<SystemThreads>;

MOQ_RUNTIME_BUILD_END
}  // namespace moq::runtime
