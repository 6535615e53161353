// Helpers of the generator's fixture that hold no mutation point themselves: the
// generator is given only fixture.cpp, so the loops there end whatever mutant is on.
#pragma once

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
