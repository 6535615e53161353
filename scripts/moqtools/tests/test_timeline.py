"""The timeline page of a real failing replay, opened in headless Chromium.

The moqsim is pytest's --moqsim, one built with -Dmutants=true (build-sites/cli/moqsim,
which scripts/canaries builds). The test replays a case that fails with a mutation site
switched off (CASE below), with --trace and --timeline, opens the page in Chromium and
measures what it drew (getBBox): a lane per task the trace names, each with a drawn size;
the failure mark drawn at the failing event, the model's message on the page; an arrow
per wake; a hover text per event holding its fields; nothing loaded from outside. The
same checks must find pages whose lanes or failure mark are hidden.

  python3 -m moqtools.tests.test_timeline MOQSIM --screenshot PNG
writes a picture of the page instead (docs/timeline.png), once the same checks pass on
it; exit 1 if they do not, 2 on bad usage or no browser.
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

from moqtools.browser import Browser, BrowserError
from moqtools.tests.support import ROOT, moqsim

# The resume suite with the reader's registration on the route switched off: it misses a
# wake (docs/TESTING.md, "The timeline").
CASE = [os.path.join(ROOT, "corpus", "resume_a_route_served_after_the_walk_read_it.json"), "--mutant",
        "resume.route.register"]

# What the page drew, measured by the browser: each lane's, the failure mark's and each
# wake arrow's box, and the hover text of every event. A box is the smaller of the
# element's geometry (getBBox) and its box on the laid-out page (an element not rendered
# has none there, whatever its geometry).
MEASURE = r"""
(() => {
  const box = element => {
    const geometry = element.getBBox(), shown = element.getBoundingClientRect();
    return { width: Math.min(geometry.width, shown.width), height: Math.min(geometry.height, shown.height) };
  };
  const chart = document.querySelector("svg.chart");
  if (!chart) return { error: "no svg.chart on the page" };
  const mark = document.getElementById("failure-mark");
  const failing = mark ? mark.closest(".event") : null;
  const section = document.getElementById("failure-message");
  return {
    lanes: [...chart.querySelectorAll("g.lane")].map(lane =>
        Object.assign({ task: lane.dataset.task, id: Number(lane.dataset.taskId) }, box(lane))),
    failure: mark ? Object.assign({ index: failing ? Number(failing.dataset.index) : null }, box(mark)) : null,
    failure_text: section ? section.innerText : "",
    arrows: [...chart.querySelectorAll("path.wake-arrow")].map(arrow =>
        Object.assign({ index: Number(arrow.closest(".event").dataset.index),
                        length: arrow.getTotalLength() }, box(arrow))),
    titles: Object.fromEntries([...chart.querySelectorAll("g.event")].map(event =>
        [event.dataset.index, event.querySelector(":scope > title").textContent])),
    loaded: performance.getEntriesByType("resource").map(entry => entry.name),
  };
})()
"""


def replay_case(moqsim, folder):
    """Replays CASE with its trace and timeline into folder: (trace events, page path)."""
    trace = os.path.join(folder, "trace.jsonl")
    page = os.path.join(folder, "timeline.html")
    run = subprocess.run([moqsim, "replay", *CASE, "--trace", trace, "--timeline", page],
                         capture_output=True, text=True, timeout=120)
    if run.returncode != 1:
        raise AssertionError(f"the replay must fail (status 1), got {run.returncode}:\n{run.stdout}{run.stderr}")
    with open(trace, encoding="utf-8") as handle:
        events = [json.loads(line) for line in handle if line.strip()]
    return events, page


def failing_index(events):
    """The index of the failing event: the first violated verdict, else a failed end."""
    for index, event in enumerate(events):
        if event["event"] == "verdict" and event.get("verdict") == "violated":
            return index
    for index, event in enumerate(events):
        if event["event"] == "end" and (event.get("message") or event.get("outcome") not in ("finished", "quiet")):
            return index
    return None


def field_text(value):
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))


def problems(events, shown):
    """What the page drew wrong for these trace events, one line a problem."""
    if "error" in shown:
        return [shown["error"]]
    found = []
    tasks = {}
    for event in events:
        if "task_id" in event and event["task_id"] not in tasks:
            tasks[event["task_id"]] = event.get("task")
    lanes = [(lane["id"], lane["task"]) for lane in shown["lanes"]]
    if lanes != list(tasks.items()):
        found.append(f"lanes {lanes}, but the trace names tasks {list(tasks.items())}")
    for lane in shown["lanes"]:
        if not (lane["width"] > 0 and lane["height"] > 0):
            found.append(f"the lane of {lane['task']} is not drawn ({lane['width']} x {lane['height']})")
    failing = failing_index(events)
    if failing is None:
        found.append("the trace holds no failure")
    elif not shown["failure"]:
        found.append("no failure mark")
    else:
        mark = shown["failure"]
        if not (mark["width"] > 0 and mark["height"] > 0):
            found.append(f"the failure mark is not drawn ({mark['width']} x {mark['height']})")
        if mark["index"] != failing:
            found.append(f"the failure mark is on event {mark['index']}, the trace fails at {failing}")
        message = events[failing].get("message", "")
        if not message or message not in shown["failure_text"]:
            found.append(f"the page does not show the failure's message {message!r}")
    wakes = [index for index, event in enumerate(events) if event["event"] in ("wake", "stale_wake")]
    arrows = sorted(arrow["index"] for arrow in shown["arrows"])
    if arrows != wakes:
        found.append(f"{len(arrows)} wake arrows for {len(wakes)} wakes")
    for arrow in shown["arrows"]:
        if not arrow["length"] > 0:
            found.append(f"the arrow of wake {arrow['index']} is not drawn")
    for index, event in enumerate(events):
        title = shown["titles"].get(str(index))
        if title is None:
            found.append(f"event {index} ({event['event']}) has no mark")
            continue
        missing = [key for key, value in event.items() if f"{key}: {field_text(value)}" not in title]
        if missing:
            found.append(f"the hover text of event {index} lacks {missing}")
    if shown["loaded"]:
        found.append(f"the page loaded {shown['loaded']}")
    return found


def broken_copy(page, folder, name, css):
    """A copy of the page with `css` added: what a renderer that drew less would give."""
    with open(page, encoding="utf-8") as handle:
        text = handle.read()
    path = os.path.join(folder, name)
    with open(path, "w", encoding="utf-8") as out:
        out.write(text.replace("</head>", f"<style>{css}</style></head>", 1))
    return path


class RealFailingCase(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.TemporaryDirectory()
        cls.events, cls.page = replay_case(moqsim(), cls.folder.name)
        with Browser() as browser:
            cls.shown = browser.open("file://" + cls.page).evaluate(MEASURE)
            cls.no_lanes = browser.open("file://" + broken_copy(
                cls.page, cls.folder.name, "no-lanes.html", ".lane{display:none}")).evaluate(MEASURE)
            cls.no_mark = browser.open("file://" + broken_copy(
                cls.page, cls.folder.name, "no-mark.html", "#failure-mark *{display:none}")).evaluate(MEASURE)

    @classmethod
    def tearDownClass(cls):
        cls.folder.cleanup()

    def test_the_case_fails_with_tasks_and_wakes(self):
        self.assertIsNotNone(failing_index(self.events))
        self.assertGreaterEqual(sum(event["event"] == "spawn" for event in self.events), 2)
        self.assertGreaterEqual(sum(event["event"] == "wake" for event in self.events), 1)

    def test_the_page_draws_every_lane_the_failure_every_wake_and_every_event(self):
        self.assertEqual(problems(self.events, self.shown), [])

    def test_the_checks_find_lanes_not_drawn(self):
        found = problems(self.events, self.no_lanes)
        self.assertTrue(any("lane of" in line for line in found), found)

    def test_the_checks_find_a_failure_mark_not_drawn(self):
        found = problems(self.events, self.no_mark)
        self.assertTrue(any("failure mark is not drawn" in line for line in found), found)


def screenshot(program, path):
    """Writes a PNG of the real failing case's page, once the page passes the checks."""
    with tempfile.TemporaryDirectory() as folder:
        events, page_path = replay_case(program, folder)
        with Browser() as browser:
            page = browser.open("file://" + page_path, width=1400, height=800)
            found = problems(events, page.evaluate(MEASURE))
            if found:
                print("timeline: the page is wrong:\n  " + "\n  ".join(found), file=sys.stderr)
                sys.exit(1)
            page.screenshot(path)
    print(f"timeline: wrote {path} ({os.path.getsize(path)} bytes)")


def main():
    arguments = sys.argv[1:]
    if len(arguments) != 3 or arguments[1] != "--screenshot" or not os.access(arguments[0], os.X_OK):
        print("usage: python3 -m moqtools.tests.test_timeline MOQSIM --screenshot PNG (a moqsim built with "
              "-Dmutants=true)", file=sys.stderr)
        sys.exit(2)
    try:
        screenshot(arguments[0], arguments[2])
    except BrowserError as error:
        print(f"timeline: {error}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
