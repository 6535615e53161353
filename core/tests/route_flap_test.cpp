// Every ordering of six events on a front (switch to B, return to A, A finishing, B
// finishing, a preferences update, B dying) with one reader, judged by exactly what the
// reader hands out: "first" then "second", each once, then a clean end. Run polled only
// when its waker fired (a missed wake shows as a reader that never finishes) and eagerly.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "support/front.hpp"

using moq::model::Error;
using moq::model::GroupConsumer;
using moq::model::Preferences;
using moq::model::Walk;
using moq::test::Front;
using namespace std::chrono_literals;

namespace {

enum class Event { switch_to_b, return_to_a, finish_a, finish_b, update, kill_b };

struct Outcome {
    std::vector<std::string> handed_out;
    bool ended = false;
    bool failed = false;
};

class FlapRun : public Front {
public:
    explicit FlapRun(bool eager) : eager_(eager) {
        write(a, 0, "first");
        route.serve_from(a.consume());
    }

    void apply(Event event) {
        switch (event) {
            case Event::switch_to_b: route.serve_from(b.consume()); break;
            case Event::return_to_a: route.serve_from(a.consume()); break;
            case Event::finish_a:
                write(a, 1, "second");
                a.finish();
                break;
            case Event::finish_b:
                write(b, 0, "first");
                write(b, 1, "second");
                b.finish();
                break;
            case Event::update:
                updated_while_live = !outcome_.ended;
                preferences.modify([](Preferences& p) {
                    p.priority = 7;
                    p.max_age = 2s;
                });
                break;
            case Event::kill_b: b.abort(Error::route_failed); break;
        }
        drive();
    }

    bool updated_while_live = false;

    // Runs until quiet: woken polls, then time moves to the next deadline.
    Outcome finish() {
        drive();
        for (int step = 0; step < 100 && !outcome_.ended && !outcome_.failed; ++step) {
            const auto next = clock.next_deadline();
            if (!next) break;
            clock.advance_to(*next);
            drive();
        }
        return outcome_;
    }

private:
    static void write(moq::model::TrackProducer& copy, std::uint64_t sequence, const std::string& payload) {
        auto created = copy.create_group(sequence);
        if (!std::holds_alternative<moq::model::GroupProducer>(created)) return;  // a dead copy
        auto& group = std::get<moq::model::GroupProducer>(created);
        group.write_frame(payload);
        group.finish();
    }

    // Polls the reader while it has a wake it has not seen, and after every group it
    // hands out until it answers Pending (a task that consumes polls again); eagerly, also
    // after every event. A wake that lands during a poll is seen by the next turn.
    void drive() {
        bool more = eager_;
        for (;;) {
            const bool woken = first_poll_ || task.wakes() != seen_wakes_;
            if (!woken && !more) return;
            first_poll_ = false;
            seen_wakes_ = task.wakes();
            more = poll_once();
            if (outcome_.ended || outcome_.failed) return;
        }
    }

    // One poll of the reader task; false once it is Pending or done.
    bool poll_once() {
        if (outcome_.ended || outcome_.failed) return false;
        auto peek = reader.poll_peek_group(waiter, Walk::arrival);
        if (peek.is_pending()) return false;
        if (peek.value().is_end()) {
            outcome_.ended = true;
            return false;
        }
        if (peek.value().is_error()) {
            outcome_.failed = true;
            return false;
        }
        std::optional<GroupConsumer> group = reader.take();
        auto frame = group->poll_read_frame(waiter);
        REQUIRE(frame.is_ready());
        REQUIRE(frame.value().is_item());
        outcome_.handed_out.push_back(*frame.value().item());
        return true;
    }

    bool eager_;
    bool first_poll_ = true;
    int seen_wakes_ = 0;
    Outcome outcome_;
};

std::string describe(const std::array<Event, 6>& order) {
    static const char* names[] = {"switch_to_b", "return_to_a", "finish_a", "finish_b", "update", "kill_b"};
    std::string text;
    for (Event event : order) text += std::string(text.empty() ? "" : ", ") + names[static_cast<int>(event)];
    return text;
}

}  // namespace

TEST_CASE("route_flap_interleavings_preserve_readers") {
    std::array<Event, 6> order{Event::switch_to_b, Event::return_to_a, Event::finish_a,
                               Event::finish_b,    Event::update,      Event::kill_b};
    std::sort(order.begin(), order.end());
    int orderings = 0;
    do {
        const auto switched = std::find(order.begin(), order.end(), Event::switch_to_b);
        const auto returned = std::find(order.begin(), order.end(), Event::return_to_a);
        if (returned < switched) continue;  // A is returned to only after B served
        ++orderings;
        for (const bool eager : {false, true}) {
            FlapRun run{eager};
            for (Event event : order) run.apply(event);
            const Outcome outcome = run.finish();
            const std::string context = describe(order) + (eager ? " (eager)" : " (woken only)") + ", handed out " +
                                        std::to_string(outcome.handed_out.size()) + ", copies " +
                                        std::to_string(run.reader.copies().size());
            INFO(context);
            CHECK(outcome.handed_out == std::vector<std::string>{"first", "second"});
            CHECK(outcome.ended);
            CHECK_FALSE(outcome.failed);
            // A live reader mirrors a preferences update into the copy serving it.
            if (run.updated_while_live) CHECK(run.reader.copies().back().demand.priority == 7);
        }
    } while (std::next_permutation(order.begin(), order.end()));
    CHECK(orderings == 360);
}
