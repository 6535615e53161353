// The trace's digest and its JSON lines: every field of an event counts, the detail does
// not, a name counts by its text; the answers digest sees answers only, without their
// step or time.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/trace.hpp"

using moq::sim::AnswerKind;
using moq::sim::Event;
using moq::sim::EventKind;
using moq::sim::Trace;

namespace {

// The digest of a short trace: a run event, then `event` at step 3 and time 5, with
// `message`.
std::uint64_t digest_of(const Event& event, std::uint64_t step = 3, std::int64_t time = 5,
                        std::string_view message = {}) {
    Trace trace{false};
    trace.record(Event{.kind = EventKind::run, .task = 0}, 1, 0);
    trace.record(event, step, time, message);
    return trace.digest();
}

Event sample() { return moq::sim::answer_event("group", AnswerKind::item).with(0, 2).with(1, 1).with(2, 77); }

}  // namespace

TEST_CASE("the_digest_changes_with_every_field_of_an_event") {
    const std::uint64_t base = digest_of(sample());
    CHECK(digest_of(sample()) == base);
    const std::vector<std::pair<const char*, std::function<void(Event&)>>> changes{
        {"kind", [](Event& e) { e.kind = EventKind::operation; }},
        {"code", [](Event& e) { e.code = static_cast<std::uint8_t>(AnswerKind::error); }},
        {"task", [](Event& e) { e.task = 4; }},
        {"name", [](Event& e) { e.name = "frame"; }},
        {"label", [](Event& e) { e.label = "route_failed"; }},
        {"sequence", [](Event& e) { e.values[0] = 0; }},
        {"source", [](Event& e) { e.values[1] = 2; }},
        {"content", [](Event& e) { e.values[2] = 78; }},
        {"a value left out", [](Event& e) { e.present = 3; }},
    };
    // Not a structured binding: INFO captures the name in a lambda, which clang 14 does
    // not allow for a binding.
    for (const auto& named_change : changes) {
        const auto& what = named_change.first;
        Event changed = sample();
        named_change.second(changed);
        INFO(what);
        CHECK(digest_of(changed) != base);
    }
    CHECK(digest_of(sample(), 4) != base);
    CHECK(digest_of(sample(), 3, 6) != base);
    CHECK(digest_of(sample(), 3, 5, "R12: the model expected group 2") != base);
    CHECK(digest_of(sample(), 3, 5, "R12: the model expected group 3") !=
          digest_of(sample(), 3, 5, "R12: the model expected group 2"));
}

TEST_CASE("a_value_that_is_not_present_is_not_hashed") {
    // Only the values an event says it holds count: a stray value in an unused slot
    // changes nothing.
    Event stray = moq::sim::answer_event("group", AnswerKind::pending);
    const std::uint64_t base = digest_of(stray);
    stray.values[2] = 99;
    CHECK(digest_of(stray) == base);
}

TEST_CASE("a_name_counts_by_its_text_and_the_detail_not_at_all") {
    const std::string first = "serve";
    const std::string second = "serve";  // another address, the same text
    REQUIRE(first.c_str() != second.c_str());
    Trace one{true};
    Trace other{true};
    one.record(moq::sim::operation_event(first.c_str(), {0}), 1, 0, {}, "serve(A)");
    other.record(moq::sim::operation_event(second.c_str(), {0}), 1, 0, {}, "serve(copy A)");
    CHECK(one.digest() == other.digest());
    REQUIRE(one.entries().size() == 1);
    CHECK(one.entries().front().detail == "serve(A)");
}

TEST_CASE("the_answers_digest_holds_answers_only_without_their_step_or_time") {
    Trace first{false};
    Trace second{false};
    first.record(sample(), 3, 5);
    second.record(moq::sim::operation_event("land", {0, 2}), 1, 0);
    second.record(sample(), 9, 700);
    CHECK(first.answers_digest() == second.answers_digest());
    CHECK(first.digest() != second.digest());
    Trace third{false};
    third.record(Event(sample()).with(0, 3), 3, 5);
    CHECK(third.answers_digest() != first.answers_digest());
}

TEST_CASE("the_json_lines_carry_the_schema_and_every_field") {
    Trace trace{true};
    trace.record(Event{.kind = EventKind::spawn, .task = 0, .name = "driver"}, 0, 0);
    trace.record(Event{.kind = EventKind::spawn, .task = 1, .name = "reader"}, 0, 0);
    trace.record(Event{.kind = EventKind::wake, .task = 1}.with(0, 0), 2, 100);
    Event failed = moq::sim::answer_event("group", AnswerKind::error);
    failed.task = 1;
    failed.label = "route_failed";
    trace.record(failed, 3, 100);
    trace.record(Event{.kind = EventKind::verdict, .code = 1, .task = 1}, 3, 100, "R12: expected an end");
    const std::string lines = moq::sim::trace_json_lines(trace.entries());
    CHECK(lines.find(R"({"step":0,"time":0,"event":"spawn","schema":3,"task":"driver","task_id":0})") == 0);
    CHECK(lines.find(R"("event":"wake","task":"reader","task_id":1,"effect":"queued","by":"driver","by_id":0)") !=
          std::string::npos);
    CHECK(lines.find(R"("read":"group","answer":"error","error":"route_failed")") != std::string::npos);
    CHECK(lines.find(R"("verdict":"violated","rule":"R12","message":"R12: expected an end")") != std::string::npos);
    CHECK(std::count(lines.begin(), lines.end(), '\n') == 5);
}

TEST_CASE("a_rule_is_the_letters_and_digits_before_the_first_colon") {
    CHECK(moq::sim::rule_of("R12: the reader handed out group 2") == "R12");
    CHECK(moq::sim::rule_of("G3: too large") == "G3");
    CHECK(moq::sim::rule_of("missed wake: the reader") == "");
    CHECK(moq::sim::rule_of("R: no number") == "");
}
