#include "sim/stack_pool.hpp"

#include <vector>

#include <boost/context/fixedsize_stack.hpp>

#include "sim/fiber_sanitizer.hpp"

namespace moq::sim::stack_pool {

namespace {

// Enough for the tasks of a few executors alive at once (a suite case runs up to four).
constexpr std::size_t kept_at_most = 16;

class Pool {
public:
    Pool() { free_.reserve(kept_at_most); }
    ~Pool() {
        for (boost::context::stack_context& context : free_) release(context);
    }
    Pool(const Pool&) = delete;
    Pool& operator=(const Pool&) = delete;

    boost::context::stack_context take(std::size_t size) {
        for (std::size_t i = free_.size(); i-- > 0;) {
            if (free_[i].size != size) continue;
            const boost::context::stack_context context = free_[i];
            free_[i] = free_.back();
            free_.pop_back();
            return context;
        }
        return boost::context::fixedsize_stack(size).allocate();
    }

    void give_back(boost::context::stack_context& context) noexcept {
        if (free_.size() < kept_at_most) {
            free_.push_back(context);  // never grows: reserved
            return;
        }
        release(context);
    }

private:
    static void release(boost::context::stack_context& context) noexcept {
        boost::context::fixedsize_stack(context.size).deallocate(context);
    }

    std::vector<boost::context::stack_context> free_;
};

#ifndef MOQ_SIM_FIBER_SANITIZER
Pool& pool() {
    thread_local Pool kept;
    return kept;
}
#endif

}  // namespace

boost::context::stack_context allocate(std::size_t size) {
#ifdef MOQ_SIM_FIBER_SANITIZER
    return boost::context::fixedsize_stack(size).allocate();
#else
    return pool().take(size);
#endif
}

void deallocate(boost::context::stack_context& context) noexcept {
#ifdef MOQ_SIM_FIBER_SANITIZER
    boost::context::fixedsize_stack(context.size).deallocate(context);
#else
    pool().give_back(context);
#endif
}

}  // namespace moq::sim::stack_pool
