// The generator's fixture (scripts/lib/mutagen_check.py): every operator once or more;
// main.cpp prints what these functions answer.
// Each mutant must change exactly what the `expect` comment on its line says: the named
// output line takes the named value (or the mutant does not compile), the other lines
// stay. A line marked `expect none` must hold no mutant.
#include "fixture.hpp"

#include "helpers.hpp"
#include "util/assert.hpp"
#include "util/mutation.hpp"

namespace fixture {

bool below(int a, int b) { return a < b; }      // expect rel_flip: below=1
bool same(int a, int b) { return a == b; }      // expect rel_flip: same=0
int next(int n) { return n + 1; }               // expect off_by_one: next=5
bool both(bool a, bool b) { return a && b; }    // expect logic_swap: both=1
bool either(bool a, bool b) { return a || b; }  // expect logic_swap: either=0
int choose(bool c) { return c ? 10 : 20; }      // expect cond_negate: choose=20
int guard(const int* p) {
    if (p) return *p;  // expect cond_negate: guard=-1
    return -1;
}
int rounds(int n) {
    Countdown c{n};
    int seen = 0;
    while (c.next()) seen += 5;  // expect cond_negate: rounds=0 off_by_one: rounds=8
    return seen;
}
int sum_to(int n) {
    int sum = 0;
    for (Countdown c{n}; c.next();) sum += c.left;  // expect cond_negate: sum_to=0
    return sum;
}
int tries(int n) {
    Countdown c{n};
    int count = 0;
    do {
        count += 1;      // expect off_by_one: tries=0
    } while (c.next());  // expect cond_negate: tries=1
    return count;
}
int added() {
    total = 0;
    add(4);  // expect call_delete: added=0
    return total;
}
bool ready() { return true; }  // expect bool_return: ready=0
int bump(int n) {
    ++n;  // expect incdec_remove: bump=3
    return n;
}
int post(int n) {
    const int old = n++;  // expect incdec_remove: post=6
    return old + n;
}
constexpr int twice(int n) { return n * 2; }  // expect off_by_one: twice=3
static_assert(twice(2) == 4);                 // expect none: constant evaluation sees the original
int twice_at_run_time(int n) { return twice(n); }

bool operator<(Version a, Version b) { return a.number < b.number; }  // expect rel_flip: older=1
bool older(Version a, Version b) { return a < b; }                    // expect rel_flip: CompileError

constexpr int limit = 2 + 1;  // expect none
int checked(int n) {
    MOQ_ASSERT(n < limit * 100);  // expect none
    return n;
}
bool site_on() { return MOQ_SITE("fixture.site", gate); }  // expect none
int width() {
    if constexpr (sizeof(long) > 4) return 8;  // expect none
    return 4;
}

}  // namespace fixture
