// Blocks shared across threads, made and freed while other threads use them: a waiter's
// identity, created on first use by whichever thread registers first, and a gate's block,
// freed by whichever of its owner and its last waker lets go last. Meant to run under
// ThreadSanitizer (scripts/check --tsan, and scripts/mutate's weakened orders): the orders
// that publish and free these blocks show only there.
#include <doctest/doctest.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "kio/waiter.hpp"
#include "kio/waiter_list.hpp"
#include "model/idle.hpp"
#include "support/counting_waker.hpp"

using moq::kio::Waiter;
using moq::kio::WaiterList;
using moq::kio::Waker;
using moq::test::WakeCounter;

namespace {

// Holds every thread until all are ready, so their first steps overlap.
class StartLine {
public:
    explicit StartLine(int threads) : waiting_(threads) {}
    void arrive() {
        waiting_.fetch_sub(1);
        while (waiting_.load() > 0) std::this_thread::yield();
    }

private:
    std::atomic<int> waiting_;
};

}  // namespace

// A waiter with no identity yet, registered by several threads at once, each on a list of
// its own: one of them creates the identity, the others use the one it published. Every
// list holds that one identity, so each drain wakes the task once.
TEST_CASE("a_waiter_registered_from_several_threads_at_once_shares_one_identity") {
    constexpr int threads = 4;
    constexpr int rounds = 500;
    for (int round = 0; round < rounds; ++round) {
        WakeCounter task;
        const auto waiter = std::make_unique<Waiter>(task.waker());
        std::vector<WaiterList> lists(threads);
        StartLine start(threads);
        {
            std::vector<std::jthread> registering;
            registering.reserve(threads);
            for (int t = 0; t < threads; ++t) {
                registering.emplace_back([&, t] {
                    start.arrive();
                    lists[t].add(*waiter);
                });
            }
        }
        for (WaiterList& list : lists) {
            REQUIRE(list.contains(*waiter));
            REQUIRE(list.size() == 1);
            list.wake();
        }
        REQUIRE(task.wakes() == threads);
    }
}

// A gate's block is held by its owner and by every clone of its waker (an input's list
// holds one). A clone fired and dropped on one thread while the owner lets go of the gate
// on another: whichever lets go last frees the block, after the other is done with it.
TEST_CASE("a_gate_and_its_last_waker_let_go_on_two_threads_free_the_block_once") {
    constexpr int rounds = 2000;
    for (int round = 0; round < rounds; ++round) {
        WakeCounter task;
        const Waiter waiter(task.waker());
        auto gate = std::make_unique<moq::model::Idle<int>>();
        Waker input = gate->start(waiter, 0).waker();
        gate->finish(true);
        REQUIRE(gate->armed());
        StartLine start(2);
        {
            std::jthread firing([&] {
                start.arrive();
                input.wake();
                input = Waker();
            });
            start.arrive();
            gate.reset();
        }
        // The fire reached the task the walk ran for.
        REQUIRE(task.wakes() == 1);
    }
}
