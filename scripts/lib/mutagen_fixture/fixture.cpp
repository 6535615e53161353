// The generator's fixture (scripts/lib/mutagen_check.py): every operator once or more;
// main.cpp prints what these functions answer.
// Each mutant must change exactly what the `expect` comment on its line says: the named
// output line takes the named value (or the mutant does not compile), the other lines
// stay. A line marked `expect none` must hold no mutant.
#include "fixture.hpp"

#include <atomic>

#include "helpers.hpp"
#include "util/assert.hpp"
#include "util/mutation.hpp"

namespace fixture {

bool below(int a, int b) { return a < b; }      // expect rel_flip: below=11 return_default: below=00
bool same(int a, int b) { return a == b; }      // expect rel_flip: same=0 return_default: same=0
int next(int n) { return n + 1; }               // expect off_by_one: next=5 arith_swap: next=4 return_default: next=0
bool both(bool a, bool b) { return a && b; }    // expect logic_swap: both=11 return_default: both=00
bool either(bool a, bool b) { return a || b; }  // expect logic_swap: either=0 return_default: either=0
int choose(bool c) { return c ? 10 : 20; }      // expect cond_negate: choose=20 return_default: choose=0
int guard(const int* p) {
    if (p) return *p;  // expect cond_negate: guard=0 block_delete: guard=0 return_default: guard=0
    return 0;          // expect none: 0 is the default already
}
int rounds(int n) {
    Countdown c{n};
    int seen = 0;
    while (c.next())  // expect cond_negate: rounds=0
        seen += 5;    // expect off_by_one: rounds=8 stmt_delete: rounds=0 arith_swap: rounds=-10
    return seen;      // expect return_default: rounds=0
}
int sum_to(int n) {
    int sum = 0;
    for (Countdown c{n}; c.next();)  // expect cond_negate: sum_to=0
        sum += c.left;               // expect stmt_delete: sum_to=0 arith_swap: sum_to=-3
    return sum;                      // expect return_default: sum_to=0
}
int tries(int n) {
    Countdown c{n};
    int count = 0;
    do {
        count += 1;      // expect off_by_one: tries=0 stmt_delete: tries=0 arith_swap: tries=-3
    } while (c.next());  // expect cond_negate: tries=1
    return count;        // expect return_default: tries=0
}
int added() {
    total = 0;     // expect stmt_delete: added=4,8
    add(4);        // expect call_delete: added=0,0
    return total;  // expect return_default: added=0,0
}
bool ready() { return true; }  // expect bool_return: ready=0
int bump(int n) {
    ++n;       // expect incdec_remove: bump=3
    return n;  // expect return_default: bump=0
}
int post(int n) {
    const int old = n++;  // expect incdec_remove: post=6
    return old + n;       // expect return_default: post=0 arith_swap: post=-1
}
constexpr int twice(int n) { return n * 2; }  // expect off_by_one: twice=3 arith_swap: twice=1 return_default: twice=0
static_assert(twice(2) == 4);                 // expect none: constant evaluation sees the original
int twice_at_run_time(int n) { return twice(n); }  // expect return_default: twice=0
int half(int n) { return n / 2; }  // expect arith_swap: half=16 off_by_one: half=8 return_default: half=0
const int* after(const int* p) { return p + 1; }  // expect off_by_one: after=0 (a pointer's + is not swapped)

bool operator<(Version a, Version b) {
    return a.number < b.number;  // expect rel_flip: older=11 return_default: older=00
}
bool older(Version a, Version b) {
    return a < b;  // expect rel_flip: CompileError return_default: older=00
}

int cut(int n) {
    // cut(12), cut(10): 2,10
    if (n > 10) {  // expect cond_negate: cut=12,0 rel_flip: cut=2,0 off_by_one: cut=2,0 block_delete: cut=12,10
        n -= 10;   // expect stmt_delete: cut=12,10 arith_swap: cut=22,10 off_by_one: cut=3,10
    }
    return n;  // expect return_default: cut=0,0
}
std::optional<int> remembered(int n) {
    std::optional<int> kept;
    kept = n;     // expect stmt_delete: remembered=-1
    return kept;  // expect return_default: remembered=-1
}
Light light(bool on) { return on ? Light::on : Light::off; }  // expect cond_negate: light=0 return_default: light=0
Light dark() { return Light::off; }                           // expect none: the enumerator worth 0 is the default
int published_order() {
    return order_code(std::memory_order_release);  // expect order_weaken: order=0 return_default: order=0
}

constexpr int limit = 2 + 1;  // expect none
int checked(int n) {
    MOQ_ASSERT(n < limit * 100);  // expect none
    return n;                     // expect return_default: checked=0
}
bool site_on() { return MOQ_SITE("fixture.site", gate); }  // expect none
int width() {
    if constexpr (sizeof(long) > 4) {  // expect none
        return 8;                      // expect none
    } else {
        return 4;  // expect none
    }
}

}  // namespace fixture
