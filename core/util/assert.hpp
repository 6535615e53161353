// Assertions of the production core. They stay on in every build type: a broken
// wake invariant must stop the program, not corrupt a later read.
#pragma once

#include <sstream>
#include <string>

namespace moq::util {

// Called with what failed before the program stops. A handler may throw, to turn the
// failure into an error of the caller's own (a simulated task's failure, a unit test's
// expected exception); if it returns, the program prints the failure and aborts.
using AssertionHandler = void (*)(const char* file, int line, const std::string& what);

// Installs `handler` (null: none) and returns the one it replaces.
AssertionHandler set_assertion_handler(AssertionHandler handler);

[[noreturn]] void assertion_failed(const char* file, int line, const std::string& what);

template <class A, class B>
[[noreturn]] void comparison_failed(const char* file, int line, const char* expression, const A& left, const B& right) {
    std::ostringstream out;
    out << expression << " (left: " << left << ", right: " << right << ")";
    assertion_failed(file, line, out.str());
}

}  // namespace moq::util

#define MOQ_ASSERT(condition)                                              \
    do {                                                                   \
        if (!(condition)) [[unlikely]]                                     \
            ::moq::util::assertion_failed(__FILE__, __LINE__, #condition); \
    } while (false)

// Compares two values and prints both when they differ.
#define MOQ_ASSERT_OP(left, op, right)                                                                           \
    do {                                                                                                         \
        const auto& moq_left_ = (left);                                                                          \
        const auto& moq_right_ = (right);                                                                        \
        if (!(moq_left_ op moq_right_)) [[unlikely]]                                                             \
            ::moq::util::comparison_failed(__FILE__, __LINE__, #left " " #op " " #right, moq_left_, moq_right_); \
    } while (false)

#define MOQ_ASSERT_EQ(left, right) MOQ_ASSERT_OP(left, ==, right)
#define MOQ_ASSERT_LT(left, right) MOQ_ASSERT_OP(left, <, right)
#define MOQ_ASSERT_LE(left, right) MOQ_ASSERT_OP(left, <=, right)
#define MOQ_ASSERT_GT(left, right) MOQ_ASSERT_OP(left, >, right)
#define MOQ_ASSERT_GE(left, right) MOQ_ASSERT_OP(left, >=, right)
#define MOQ_ASSERT_NE(left, right) MOQ_ASSERT_OP(left, !=, right)
