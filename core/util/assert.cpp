#include "util/assert.hpp"

#include <cstdio>
#include <cstdlib>

namespace moq::util {

void assertion_failed(const char* file, int line, const std::string& what) {
    std::fprintf(stderr, "moq assertion failed at %s:%d: %s\n", file, line, what.c_str());
    std::fflush(stderr);
    std::abort();
}

}  // namespace moq::util
