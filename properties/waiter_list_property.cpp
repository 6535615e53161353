// WaiterList against a plain model: random registers, drops, takes and wakes.
// After every step: no identity twice in the list, the live entries are exactly the
// live registered waiters; on a wake, each of those is woken once and nothing else.
#include <doctest/doctest.h>
#include <rapidcheck.h>

#include <memory>
#include <set>
#include <vector>

#include "kio/waiter.hpp"
#include "kio/waiter_list.hpp"
#include "support/counting_waker.hpp"

namespace {

using moq::kio::Waiter;
using moq::kio::WaiterList;
using moq::test::WakeCounter;

enum class Action { create, register_waiter, drop, clone_register, take_then_wake, wake };

struct Step {
    Action action;
    unsigned pick;  // which waiter, modulo the number that exist
};

void showValue(const Step& step, std::ostream& out) {
    static const char* names[] = {"create", "register", "drop", "clone_register", "take_then_wake", "wake"};
    out << names[static_cast<int>(step.action)] << "(" << step.pick << ")";
}

struct Slot {
    std::unique_ptr<WakeCounter> counter = std::make_unique<WakeCounter>();
    std::unique_ptr<Waiter> waiter;
    bool registered = false;  // model: in the list since the last drain
    int expected_wakes = 0;
};

void drain_and_check(std::vector<Slot>& slots, WaiterList drained) {
    drained.wake();
    for (Slot& slot : slots) {
        if (slot.registered && slot.waiter) ++slot.expected_wakes;
        slot.registered = false;
        RC_ASSERT(slot.counter->wakes() == slot.expected_wakes);
    }
}

void run(const std::vector<Step>& steps) {
    WaiterList list;
    std::vector<Slot> slots;
    std::vector<std::unique_ptr<Waiter>> clones;
    for (const Step& step : steps) {
        const bool any = !slots.empty();
        Slot* slot = any ? &slots[step.pick % slots.size()] : nullptr;
        switch (step.action) {
            case Action::create:
                slots.emplace_back();
                slots.back().waiter = std::make_unique<Waiter>(slots.back().counter->waker());
                break;
            case Action::register_waiter:
                if (slot && slot->waiter) {
                    slot->waiter->register_on(list);
                    slot->registered = true;
                }
                break;
            case Action::clone_register:
                // A clone registers for the original: same identity, one entry.
                if (slot && slot->waiter) {
                    Waiter clone = *slot->waiter;
                    clone.register_on(list);
                    slot->registered = true;
                }
                break;
            case Action::drop:
                if (slot) slot->waiter.reset();
                break;
            case Action::take_then_wake:
                drain_and_check(slots, list.take());
                break;
            case Action::wake: {
                WaiterList swapped = std::move(list);
                list = WaiterList();
                drain_and_check(slots, std::move(swapped));
                break;
            }
        }
        std::size_t expected_live = 0;
        for (const Slot& s : slots) expected_live += (s.registered && s.waiter) ? 1 : 0;
        RC_ASSERT(list.live() == expected_live);
        for (const Slot& s : slots)
            if (s.waiter) RC_ASSERT(list.contains(*s.waiter) == s.registered);
    }
    drain_and_check(slots, list.take());
}

}  // namespace

namespace rc {
template <>
struct Arbitrary<Step> {
    static Gen<Step> arbitrary() {
        return gen::build<Step>(
            gen::set(&Step::action, gen::weightedElement<Action>({{3, Action::create},
                                                                  {6, Action::register_waiter},
                                                                  {2, Action::drop},
                                                                  {1, Action::clone_register},
                                                                  {1, Action::take_then_wake},
                                                                  {1, Action::wake}})),
            gen::set(&Step::pick, gen::inRange(0u, 64u)));
    }
};
}  // namespace rc

TEST_CASE("waiter_list_matches_its_model") {
    CHECK(rc::check("waiter list against a plain model", [](const std::vector<Step>& steps) { run(steps); }));
}
