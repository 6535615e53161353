#include "util/assert.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace moq::util {

namespace {

std::atomic<AssertionHandler> handler{nullptr};

}  // namespace

AssertionHandler set_assertion_handler(AssertionHandler replacement) {
    return handler.exchange(replacement, std::memory_order_acq_rel);
}

void assertion_failed(const char* file, int line, const std::string& what) {
    if (AssertionHandler installed = handler.load(std::memory_order_acquire)) installed(file, line, what);
    std::fprintf(stderr, "moq assertion failed at %s:%d: %s\n", file, line, what.c_str());
    std::fflush(stderr);
    std::abort();
}

}  // namespace moq::util
