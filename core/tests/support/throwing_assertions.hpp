// Turns a failed core assertion into an exception, so a unit test can expect one.
#pragma once

#include <stdexcept>
#include <string>

#include "util/assert.hpp"

namespace moq::test {

struct AssertionThrown : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Installs the throwing handler for as long as it lives.
class ThrowingAssertions {
public:
    ThrowingAssertions() : previous_(util::set_assertion_handler(&raise)) {}
    ~ThrowingAssertions() { util::set_assertion_handler(previous_); }
    ThrowingAssertions(const ThrowingAssertions&) = delete;
    ThrowingAssertions& operator=(const ThrowingAssertions&) = delete;

private:
    static void raise(const char* file, int line, const std::string& what) {
        throw AssertionThrown(std::string(file) + ":" + std::to_string(line) + ": " + what);
    }
    util::AssertionHandler previous_;
};

}  // namespace moq::test
