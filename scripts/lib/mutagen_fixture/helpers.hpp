// Helpers of the generator's fixture that hold no mutation point themselves: the
// generator is given only fixture.cpp, so the loops there end whatever mutant is on.
#pragma once

#include <atomic>

struct Countdown {
    int left;
    bool next() {
        if (left == 0) return false;
        left -= 1;
        return true;
    }
};

inline int total = 0;
inline void add(int amount) { total += amount; }

// A memory order as a number, so that a weakened order shows in the fixture's output.
inline int order_code(std::memory_order order) { return static_cast<int>(order); }
