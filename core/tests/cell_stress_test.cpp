// Writers on several threads, readers parked on the cell: no wake may be lost.
// Meant to run under ThreadSanitizer too (scripts/check --tsan).
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "kio/cell.hpp"
#include "kio/park.hpp"
#include "model/group.hpp"
#include "model/track.hpp"

using moq::kio::Consumer;
using moq::kio::Park;
using moq::kio::Producer;
using moq::kio::Waker;
using moq::kio::WakerVtable;

namespace {

// A thread that blocks until woken: the smallest real executor.
class Blocker {
public:
    Waker waker() { return Waker(&vtable, this); }
    void wait() {
        std::unique_lock lock(mutex_);
        // Bounded so a lost wake shows up as a failure, not a hang.
        woken_cv_.wait_for(lock, std::chrono::seconds(10), [&] { return woken_; });
        timed_out_ = timed_out_ || !woken_;
        woken_ = false;
    }
    [[nodiscard]] bool timed_out() const { return timed_out_; }

private:
    static void* clone(void* data) { return data; }
    static void wake(void* data) {
        auto* self = static_cast<Blocker*>(data);
        {
            std::lock_guard lock(self->mutex_);
            self->woken_ = true;
        }
        self->woken_cv_.notify_one();
    }
    static void drop(void*) {}
    static constexpr WakerVtable vtable{&clone, &wake, &drop};

    std::mutex mutex_;
    std::condition_variable woken_cv_;
    bool woken_ = false;
    bool timed_out_ = false;
};

}  // namespace

TEST_CASE("concurrent_writers_never_lose_a_wake") {
    constexpr int writers = 4;
    constexpr int writes_each = 2000;
    constexpr int readers = 3;
    constexpr int total = writers * writes_each;

    Producer<int> producer{0};
    std::vector<std::thread> threads;
    threads.reserve(readers + writers);
    std::atomic<bool> any_timed_out{false};
    std::vector<int> final_seen(readers, 0);
    // Outside the reader threads: a writer may still be running a reader's waker (it
    // took the waiter list before the reader saw the last value) after that reader
    // returned, and the waker's data is the blocker itself.
    std::vector<Blocker> blockers(readers);

    for (int r = 0; r < readers; ++r) {
        threads.emplace_back([&, r, consumer = producer.consume()] {
            Blocker& blocker = blockers[r];
            Park park;
            int seen = 0;
            while (seen < total) {
                const auto& waiter = park.hold(blocker.waker());
                auto answer = consumer.poll(waiter, [seen](const int& value) -> std::optional<int> {
                    if (value > seen) return value;
                    return std::nullopt;
                });
                if (answer.is_ready()) {
                    seen = answer.value();
                    continue;
                }
                if (answer.is_closed()) break;
                blocker.wait();
                if (blocker.timed_out()) break;
            }
            final_seen[r] = seen;
            if (blocker.timed_out()) any_timed_out = true;
        });
    }
    for (int w = 0; w < writers; ++w) {
        threads.emplace_back([&] {
            for (int i = 0; i < writes_each; ++i) producer.modify([](int& value) { ++value; });
        });
    }
    for (std::thread& thread : threads) thread.join();
    CHECK_FALSE(any_timed_out.load());
    for (int r = 0; r < readers; ++r) CHECK(final_seen[r] == total);
}

// Copies and drops of a cell's consumers change its count without the lock while it
// stays above zero; the drop that takes it to zero must still wake a waiter that read
// the count just before.
TEST_CASE("consumer_churn_on_threads_never_loses_the_last_drop_wake") {
    constexpr int rounds = 200;
    constexpr int churners = 3;
    constexpr int copies_each = 200;
    bool any_timed_out = false;
    int unused_seen = 0;
    for (int round = 0; round < rounds; ++round) {
        Producer<int> producer{0};
        std::optional<Consumer<int>> first = producer.consume();
        std::vector<std::thread> threads;
        bool unused = false;
        bool timed_out = false;
        // Outside the waiting thread, as in the test above: the last drop's wake may still
        // be signalling the blocker after the waiter saw it and returned.
        Blocker blocker;
        threads.emplace_back([&] {
            Park park;
            for (;;) {
                auto answer = producer.poll_unused(park.hold(blocker.waker()));
                if (answer.is_ready()) {
                    unused = answer.value();
                    return;
                }
                blocker.wait();
                if (blocker.timed_out()) {
                    timed_out = true;
                    return;
                }
            }
        });
        for (int c = 0; c < churners; ++c) {
            threads.emplace_back([own = *first] {
                for (int i = 0; i < copies_each; ++i) {
                    Consumer<int> copy = own;
                    static_cast<void>(copy);
                }
            });
        }
        first.reset();
        for (std::thread& thread : threads) thread.join();
        any_timed_out = any_timed_out || timed_out;
        if (unused) ++unused_seen;
    }
    CHECK_FALSE(any_timed_out);
    CHECK(unused_seen == rounds);
}

TEST_CASE("concurrent_group_writes_reach_a_gated_reader") {
    // The reader re-polls without a wake now and then, so its gate arms; the writer's
    // wakes arrive from another thread while the reader starts and finishes walks.
    constexpr int frames = 3000;
    moq::model::GroupProducer producer{0};
    moq::model::GroupConsumer consumer = producer.consume();
    int read = 0;
    bool in_order = true;
    bool timed_out = false;
    Blocker blocker;  // outlives the writer's last wake, as above
    std::thread reader([&] {
        Park park;
        int spurious = 0;
        while (read < frames) {
            const auto& waiter = park.hold(blocker.waker());
            auto answer = consumer.poll_read_frame(waiter);
            if (answer.is_ready()) {
                if (!answer.value().is_item()) break;
                in_order = in_order && *answer.value().item() == std::to_string(read);
                ++read;
                continue;
            }
            if (++spurious % 3 != 0) continue;  // an idle re-poll, as another future's wake causes
            blocker.wait();
            if (blocker.timed_out()) {
                timed_out = true;
                break;
            }
        }
    });
    std::thread writer([&] {
        for (int i = 0; i < frames; ++i) producer.write_frame(std::to_string(i));
        producer.finish();
    });
    writer.join();
    reader.join();
    CHECK_FALSE(timed_out);
    CHECK(read == frames);
    CHECK(in_order);
}

// append_group reads the newest sequence and lands one past it in one step: threads
// appending at once each land, at distinct consecutive sequences. More threads than
// cores, so one is preempted now and then between any two steps of an append; a few
// rounds, since a round of the two-step append fails only about nine times in ten.
TEST_CASE("t1_concurrent_appends_each_land_at_a_distinct_consecutive_sequence") {
    constexpr int threads = 8;
    constexpr int appends_per_thread = 20000;
    constexpr int rounds = 3;
    for (int round = 0; round < rounds; ++round) {
        moq::model::TrackProducer track;
        std::vector<std::vector<std::uint64_t>> landed(threads);
        std::atomic<int> refused{0};
        std::atomic<int> ready{0};
        {
            std::vector<std::jthread> appenders;
            appenders.reserve(threads);
            for (int t = 0; t < threads; ++t) {
                appenders.emplace_back([&, t] {
                    ready.fetch_add(1);
                    while (ready.load() < threads) std::this_thread::yield();
                    for (int i = 0; i < appends_per_thread; ++i) {
                        auto created = track.append_group();
                        if (auto* group = std::get_if<moq::model::GroupProducer>(&created)) {
                            landed[t].push_back(group->sequence());
                        } else {
                            refused.fetch_add(1);
                        }
                    }
                });
            }
        }
        REQUIRE(refused.load() == 0);
        std::vector<std::uint64_t> all;
        for (const auto& sequences : landed) all.insert(all.end(), sequences.begin(), sequences.end());
        std::sort(all.begin(), all.end());
        REQUIRE(all.size() == static_cast<std::size_t>(threads * appends_per_thread));
        for (std::size_t i = 0; i < all.size(); ++i) REQUIRE(all[i] == i);
    }
}

// Rust parity (loom racing_last_producer_drops_still_close): the last two producers
// dropped on two threads at once close the cell exactly once, and a waiter parked on
// the close hears it once. A smoke test: the window is a few instructions wide.
TEST_CASE("racing_last_producer_drops_close_the_cell_once") {
    constexpr int rounds = 2000;
    struct Count {
        std::atomic<int> wakes{0};
        static void* clone(void* data) { return data; }
        static void wake(void* data) { static_cast<Count*>(data)->wakes.fetch_add(1); }
        static void drop(void*) {}
    };
    static constexpr WakerVtable count_vtable{&Count::clone, &Count::wake, &Count::drop};
    int not_closed = 0;
    int wrong_wakes = 0;
    for (int round = 0; round < rounds; ++round) {
        Count count;
        const moq::kio::Waiter waiter{Waker(&count_vtable, &count)};
        std::optional<Producer<int>> first{std::in_place, 0};
        std::optional<Producer<int>> second{*first};
        const Consumer<int> consumer = first->consume();
        REQUIRE(consumer.poll_closed(waiter).is_pending());
        std::atomic<bool> go{false};
        std::thread one([&] {
            while (!go.load()) std::this_thread::yield();
            first.reset();
        });
        std::thread two([&] {
            while (!go.load()) std::this_thread::yield();
            second.reset();
        });
        go.store(true);
        one.join();
        two.join();
        if (!consumer.is_closed()) ++not_closed;
        if (count.wakes.load() != 1) ++wrong_wakes;
    }
    CHECK(not_closed == 0);
    CHECK(wrong_wakes == 0);
}
