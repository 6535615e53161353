// The timeline page from hand-written traces: a lane per task, an arrow per wake, the
// failing event marked with its message, every event's hover text, escaped text, a
// window said on the page when a trace is longer than the page draws, bad lines refused.
// scripts/moqtools/tests/test_timeline.py opens the page of a real failing replay in Chromium.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstddef>
#include <regex>
#include <string>
#include <string_view>

#include "runner/timeline.hpp"

namespace {

using moq::runner::render_timeline;
using moq::runner::TimelineHeading;

std::size_t count(std::string_view text, std::string_view part) {
    std::size_t found = 0;
    for (std::size_t at = text.find(part); at != std::string_view::npos; at = text.find(part, at + part.size()))
        ++found;
    return found;
}

std::string line(int step, const std::string& rest) {
    return "{\"step\":" + std::to_string(step) + ",\"time\":" + std::to_string(step * 1000) + ",\"event\":" + rest +
           "}\n";
}

// Two tasks: the driver lands a group, the reader parks, the driver's landing wakes it,
// and the model finds the reader handed out the wrong sequence.
std::string failing_trace() {
    return line(0, R"("seed","schema":2,"seed":1,"strategy":"random")") +
           line(0, R"("spawn","task":"driver","task_id":0)") + line(0, R"("spawn","task":"reader","task_id":1)") +
           line(1, R"("run","task":"reader","task_id":1)") +
           line(1, R"("preempt","task":"reader","task_id":1,"at":"resume.after_route")") +
           line(2, R"("run","task":"driver","task_id":0)") +
           line(2, R"j("operation","task":"driver","task_id":0,"op":"land","args":[0,2,0],"detail":"land(A,2)")j") +
           line(2, R"("wake","task":"reader","task_id":1,"effect":"queued","by":"driver","by_id":0)") +
           line(3, R"("time","to":5000)") + line(3, R"("wake","task":"reader","task_id":1,"effect":"deduplicated")") +
           line(4, R"("run","task":"reader","task_id":1)") +
           line(4, R"("answer","task":"reader","task_id":1,"read":"group","answer":"item","sequence":3,"source":1)") +
           line(4, R"("verdict","task":"reader","task_id":1,"verdict":"violated","rule":"R4",)"
                   R"("message":"R4: handed out group 3, expected group 2")") +
           line(4, R"("end","outcome":"task_failed","message":"R4: handed out group 3, expected group 2")");
}

const TimelineHeading heading{"resume seed 1 case 7", {{"outcome", "FAILED"}}};

TEST_CASE("a lane per task, an arrow per wake, a mark per event with its fields as hover text") {
    const std::string page = render_timeline(failing_trace(), heading);
    CHECK(count(page, "<g class=\"lane\"") == 2);
    CHECK(page.find("data-task=\"driver\"") < page.find("data-task=\"reader\""));
    CHECK(count(page, "<path class=\"wake-arrow") == 2);
    CHECK(count(page, "<title>event #") == 14);
    CHECK(page.find("<title>event #7\nstep: 2\ntime: 2000 (2 \u00b5s)\nevent: operation\ntask: driver\ntask_id: "
                    "0\nop: land\nargs: [0,2,0]\ndetail: land(A,2)</title>") != std::string::npos);
    // The preemption point and the operation carry their labels.
    CHECK(page.find(">resume.after_route</text>") != std::string::npos);
    CHECK(page.find(">land(A,2)</text>") != std::string::npos);
}

TEST_CASE("a wake's arrow runs from the waking task's lane to the woken one's, a clock's from the run row") {
    const std::string page = render_timeline(failing_trace(), heading);
    const std::regex arrow(R"re(class="wake-arrow w-(\w+)" d="M([0-9.]+),([0-9.]+) L([0-9.]+),([0-9.]+)")re");
    std::vector<std::smatch> arrows;
    for (auto it = std::sregex_iterator(page.begin(), page.end(), arrow); it != std::sregex_iterator(); ++it)
        arrows.push_back(*it);
    REQUIRE(arrows.size() == 2);
    // The driver's lane lies above the reader's, the run row above both: both point down,
    // the clock's from higher up than the driver's.
    CHECK(arrows[0][1] == "queued");
    CHECK(std::stod(arrows[0][3]) < std::stod(arrows[0][5]));
    CHECK(arrows[1][1] == "deduplicated");
    CHECK(std::stod(arrows[1][3]) < std::stod(arrows[0][3]));
    CHECK(std::stod(arrows[1][5]) == doctest::Approx(std::stod(arrows[0][5])));
}

TEST_CASE("the first violated verdict is the failure, marked, with its rule and message on the page") {
    const std::string page = render_timeline(failing_trace(), heading);
    CHECK(count(page, "id=\"failure-mark\"") == 1);
    const std::size_t mark = page.find("id=\"failure-mark\"");
    CHECK(page.rfind("<g class=\"event ev-verdict failure\" data-index=\"12\">", mark) != std::string::npos);
    CHECK(page.find("<span class=\"rule\">R4</span>") != std::string::npos);
    CHECK(page.find("<span class=\"message\">R4: handed out group 3, expected group 2</span>") != std::string::npos);
    CHECK(page.find("class=\"failure-band\"") != std::string::npos);
}

TEST_CASE("a failed end is the failure when no verdict is violated; a passing run has none") {
    std::string trace = line(0, R"("spawn","task":"reader","task_id":0)") +
                        line(1, R"("end","outcome":"missed_wake","message":"R7: missed wake")");
    std::string page = render_timeline(trace, heading);
    CHECK(count(page, "id=\"failure-mark\"") == 1);
    CHECK(page.find("<g class=\"event ev-end failure\" data-index=\"1\">") != std::string::npos);
    CHECK(page.find("R7: missed wake</span>") != std::string::npos);

    trace = line(0, R"("spawn","task":"reader","task_id":0)") + line(1, R"("end","outcome":"finished")");
    page = render_timeline(trace, heading);
    CHECK(page.find("id=\"failure-mark\"") == std::string::npos);
    CHECK(page.find("No failure in this trace: the run ended finished.") != std::string::npos);
}

TEST_CASE("text from the trace and the heading is escaped") {
    const std::string hostile = R"(<script>alert(\"x\")</script> & 'q')";
    const std::string trace = line(0, R"("spawn","task":")" + hostile + R"(","task_id":0)") +
                              line(1, R"("verdict","verdict":"violated","message":"</svg><b>boom</b>")");
    const std::string page = render_timeline(trace, TimelineHeading{"<i>title</i>", {{"<k>", "<v>"}}});
    CHECK(count(page, "<script") == 1);  // the page's own
    CHECK(page.find("<b>") == std::string::npos);
    CHECK(page.find("<i>") == std::string::npos);
    CHECK(page.find("data-task=\"&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39;\"") !=
          std::string::npos);
    CHECK(page.find("&lt;/svg&gt;&lt;b&gt;boom&lt;/b&gt;") != std::string::npos);
    CHECK(page.find("<dt>&lt;k&gt;</dt><dd>&lt;v&gt;</dd>") != std::string::npos);
    CHECK(moq::runner::markup_escape(std::string("a\x01\x1a\x7fz\n\0", 7)) == "a&#x2401;&#x241a;&#x2421;z\n&#x2400;");
}

TEST_CASE("the page loads nothing: no address, every url() a fragment of the page") {
    const std::string page = render_timeline(failing_trace(), heading);
    CHECK(page.find("http") == std::string::npos);
    CHECK(page.find(" src=") == std::string::npos);
    CHECK(page.find("@import") == std::string::npos);
    CHECK(count(page, "url(") == count(page, "url(#"));
}

TEST_CASE("a trace longer than the page draws: the window that holds the failure, said on the page") {
    std::string trace = line(0, R"("spawn","task":"reader","task_id":0)");
    for (int step = 1; step < 30; ++step)
        trace += step == 25 ? line(step, R"("verdict","task_id":0,"verdict":"violated","message":"R1: late")")
                            : line(step, R"("run","task":"reader","task_id":0)");
    const std::string page = render_timeline(trace, heading, 10);
    CHECK(count(page, "<title>event #") == 10);
    CHECK(page.find("<title>event #18\n") != std::string::npos);
    CHECK(page.find("<title>event #27\n") != std::string::npos);
    CHECK(page.find("This trace has 30 events; the page draws at most 10, so it shows events #18 to #27") !=
          std::string::npos);
    CHECK(count(page, "id=\"failure-mark\"") == 1);
    CHECK(render_timeline(trace, heading, 30).find("window-note") == std::string::npos);
}

TEST_CASE("a line that is no trace event is refused, naming the line") {
    using moq::runner::TimelineInputError;
    CHECK_THROWS_WITH_AS(render_timeline(line(0, R"("spawn")") + "{ not json\n", heading),
                         "trace line 2: not a JSON object", TimelineInputError);
    CHECK_THROWS_WITH_AS(render_timeline("{\"time\":0,\"event\":\"run\"}\n", heading),
                         "trace line 1: an event needs a whole step, a whole time and an event kind",
                         TimelineInputError);
    CHECK_THROWS_AS(render_timeline("[1,2]\n", heading), TimelineInputError);
}

}  // namespace
