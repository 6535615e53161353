#!/usr/bin/env python3
"""Opens the HTML mutation report in headless Chromium and checks what it shows.

Usage: python3 -m moqtools.render_check PAGE_HTML REPORT_JSON [--screenshot PNG] [--source-screenshot PNG]

Reads, from the rendered <mutation-test-report-app> (through its shadow roots), the
mutation score of all files and the files its file picker lists, and compares them with
REPORT_JSON: the score must be the schema's ((killed + timeout) / (killed + timeout +
survived + no coverage), two decimals) and every file of the report must be listed.
Then opens the file with the most mutants: it must show that file's source, line for
line, with each of its mutants marked. --screenshot writes a PNG of the whole overview
page; --source-screenshot one of that file's view at its first mutant, every state
shown. Exit 0 if it all matches, 1 if not, 2 on bad input or no browser.
"""

import argparse
import json
import os
import sys

from .browser import Browser, BrowserError
from .report_html import load_report

# Waits (bounded) until the report has rendered, then reads it. Each element of the
# viewer renders into its own shadow root.
READ_RENDERED = r"""
(async () => {
  const deadline = Date.now() + WAIT_MS;
  const pause = () => new Promise(done => setTimeout(done, 50));
  const app = document.querySelector("mutation-test-report-app");
  if (!app) return { error: "no mutation-test-report-app element" };
  const inside = (host, selector) => host && host.shadowRoot ? host.shadowRoot.querySelector(selector) : null;
  let table = null;
  while (Date.now() < deadline) {
    table = inside(inside(app, "mte-mutant-view"), "mte-metrics-table");
    if (table && table.shadowRoot && table.shadowRoot.querySelector("tbody tr")) break;
    await pause();
  }
  if (!table || !table.shadowRoot.querySelector("tbody tr")) {
    return { error: "the report did not render (no metrics table)" + (app.errorMessage ? ": " + app.errorMessage : "") };
  }
  const first = table.shadowRoot.querySelector("tbody tr");
  const cells = [...first.querySelectorAll("td")].map(cell => cell.textContent.trim());
  const picker = inside(app, "mte-file-picker");
  const files = picker ? [...picker.shadowRoot.querySelectorAll("#files li a")]
      .filter(link => (link.getAttribute("href") || "").includes("#mutant/"))
      .map(link => decodeURIComponent(link.getAttribute("href").split("#mutant/")[1])) : [];
  return { title: document.title, row: cells, files: files };
})()
"""

# The source of one file as the viewer shows it: its lines and the ids of the mutants it
# marks in them.
READ_FILE_VIEW = r"""
(async () => {
  const deadline = Date.now() + 15000;
  const pause = () => new Promise(done => setTimeout(done, 50));
  const app = document.querySelector("mutation-test-report-app");
  const inside = (host, selector) => host && host.shadowRoot ? host.shadowRoot.querySelector(selector) : null;
  while (Date.now() < deadline) {
    const file = inside(inside(app, "mte-mutant-view"), "mte-file");
    const rows = file && file.shadowRoot ? file.shadowRoot.querySelectorAll("#report-code-block tr.line") : [];
    if (rows.length) {
      const marked = file.shadowRoot.querySelectorAll("#report-code-block [data-mutant-id]");
      return { lines: [...rows].map(row => row.querySelector("td.code > span").textContent),
               mutants: [...new Set([...marked].map(element => element.dataset.mutantId))].sort() };
    }
    await pause();
  }
  return { error: "the file view did not render" };
})()
"""


def expected_score(report):
    """The schema's mutation score of all files, as the viewer prints it ("93.33")."""
    detected = undetected = 0
    for entry in report["files"].values():
        for mutant in entry["mutants"]:
            detected += mutant["status"] in ("Killed", "Timeout")
            undetected += mutant["status"] in ("Survived", "NoCoverage")
    if detected + undetected == 0:
        return None
    return f"{100 * detected / (detected + undetected):.2f}"


def read_rendered(page, wait_ms=15000):
    """{"score": "93.33", "files": [...]} read from the rendered overview, once it has
    rendered (BrowserError if it has not within wait_ms)."""
    shown = page.evaluate(READ_RENDERED.replace("WAIT_MS", str(int(wait_ms))))
    if "error" in shown:
        raise BrowserError(shown["error"])
    # The first row is "All files": its cells are the name, then score bar and value
    # "of total", then bar and value "of covered".
    return {"score": shown["row"][2] if len(shown["row"]) > 2 else None, "files": shown["files"],
            "title": shown["title"]}


def read_file_view(page, path):
    """{"lines": [...], "mutants": [ids]}: the source lines the viewer shows for one file
    (path as the file picker names it) and the mutants marked in them."""
    page.evaluate(f"location.hash = {json.dumps('#mutant/' + path)}")
    shown = page.evaluate(READ_FILE_VIEW)
    if "error" in shown:
        raise BrowserError(shown["error"])
    return shown


def mismatches(report, shown):
    """What the rendered page gets wrong about the report, one line each."""
    problems = []
    score = expected_score(report)
    if score is not None and shown["score"] != score:
        problems.append(f"the page shows the score {shown['score']!r}, the report's is {score}")
    # The picker names files relative to the folder they all share.
    for path in report["files"]:
        if not any(path.endswith(listed) for listed in shown["files"]):
            problems.append(f"the page lists no file {path} (it lists {', '.join(shown['files']) or 'none'})")
    return problems


# Ticks every state filter of the file view (the viewer shows only some states at
# first), then scrolls the given line (1-based) to the middle of the window.
SHOW_EVERY_STATE_AT = r"""
(async (line) => {
  const app = document.querySelector("mutation-test-report-app");
  const file = app.shadowRoot.querySelector("mte-mutant-view").shadowRoot.querySelector("mte-file");
  const filter = file.shadowRoot.querySelector("mte-state-filter");
  for (const box of filter.shadowRoot.querySelectorAll("input[type=checkbox]")) if (!box.checked) box.click();
  await file.updateComplete;
  const rows = file.shadowRoot.querySelectorAll("#report-code-block tr.line");
  rows[Math.min(rows.length, Math.max(1, line)) - 1].scrollIntoView({ block: "center" });
  await new Promise(done => setTimeout(done, 400));  // the filters' transitions end
  return true;
})
"""


def busiest_file(report):
    """The path of the file with the most mutants (the first such path)."""
    return max(sorted(report["files"]), key=lambda path: len(report["files"][path]["mutants"]))


def source_problems(report, path, view):
    """What the file view of `path` gets wrong: its source lines, its marked mutants."""
    entry = report["files"][path]
    problems = []
    if view["lines"] != entry["source"].split("\n"):
        problems.append(f"the view of {path} does not show its source line for line")
    wanted = sorted(mutant["id"] for mutant in entry["mutants"])
    if view["mutants"] != wanted:
        problems.append(f"the view of {path} marks {view['mutants']}, the report has {wanted}")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("page")
    parser.add_argument("report")
    parser.add_argument("--screenshot")
    parser.add_argument("--source-screenshot")
    args = parser.parse_args()
    try:
        report = load_report(args.report)
    except ValueError as error:
        print(f"render: {error}", file=sys.stderr)
        sys.exit(2)
    if not os.path.isfile(args.page):
        print(f"render: no page {args.page}", file=sys.stderr)
        sys.exit(2)
    try:
        with Browser() as browser:
            page = browser.open("file://" + os.path.abspath(args.page))
            shown = read_rendered(page)
            if args.screenshot:
                page.screenshot(args.screenshot)
            problems = mismatches(report, shown)
            path = busiest_file(report)
            listed = [name for name in shown["files"] if path.endswith(name)]
            if listed and report["files"][path]["mutants"]:
                problems += source_problems(report, path, read_file_view(page, listed[0]))
                if args.source_screenshot:
                    first = min(m["location"]["start"]["line"] for m in report["files"][path]["mutants"])
                    page.evaluate(f"{SHOW_EVERY_STATE_AT}({first})")
                    page.screenshot(args.source_screenshot, full_page=False)
    except BrowserError as error:
        print(f"render: {args.page}: {error}", file=sys.stderr)
        sys.exit(2 if "not found" in str(error) else 1)
    for problem in problems:
        print(f"render: {problem}", file=sys.stderr)
    if problems:
        sys.exit(1)
    mutants = sum(len(entry["mutants"]) for entry in report["files"].values())
    print(f"render: {os.path.basename(args.page)} shows {mutants} mutants in {len(report['files'])} files, "
          f"score {shown['score']}, as the report says")


if __name__ == "__main__":
    main()
