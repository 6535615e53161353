#!/usr/bin/env python3
"""reports/index.html: one page that links every report there is.

Usage: python3 -m moqtools.report_index REPORT_DIR

For each report (mutation, site coverage, line and branch coverage, benchmarks, the last
sweep and its probes, the last soak) it links each of its files that exists, with a
one-line summary read from the report where there is one, and for a report not there yet
names the script that makes it ("not generated yet: run scripts/coverage"). The page holds
no date and nothing of the machine, so the same reports give the same page. Written
atomically.
"""

import html
import json
import os
import sys

from .reports import html_page, write_reports


def read_json(folder, name):
    """The JSON in folder/name, or None if it is missing or unreadable."""
    try:
        with open(os.path.join(folder, name), encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return None


def mutation_summary(report):
    counts = {}
    for entry in report.get("files", {}).values():
        for mutant in entry.get("mutants", []):
            counts[mutant.get("status")] = counts.get(mutant.get("status"), 0) + 1
    detected = counts.get("Killed", 0) + counts.get("Timeout", 0)
    undetected = counts.get("Survived", 0) + counts.get("NoCoverage", 0)
    total = sum(counts.values())
    parts = [f"{total} mutants"] + [f"{n} {status.lower()}" for status, n in sorted(counts.items())]
    if detected + undetected:
        parts.append(f"mutation score {100 * detected / (detected + undetected):.2f}%")
    return ", ".join(parts)


def sites_summary(hits):
    names = [site["name"] for site in hits["sites"]]
    reached = {name for suite in hits["suites"] for name, n in suite["evaluations"].items() if n > 0}
    return f"{len(reached & set(names))} of {len(names)} mutation sites reached by a sweep"


def probes_summary(probes):
    names = [probe["name"] for probe in probes["probes"]]
    hit = {name for suite in probes["suites"] for name, n in suite["hits"].items() if n > 0}
    return f"{len(hit & set(names))} of {len(names)} probes hit by a sweep"


def coverage_summary(summary):
    return (f"lines {summary['line_percent']}% ({summary['line_covered']} of {summary['line_total']}), "
            f"branches {summary['branch_percent']}% ({summary['branch_covered']} of {summary['branch_total']})")


def sweep_summary(sweep):
    suites = sweep["suites"]
    passed = sum(suite["passed"] for suite in suites)
    failed = sum(suite["failed"] for suite in suites)
    seeds = sweep["seeds"]
    names = ", ".join(suite["suite"] for suite in suites)
    return f"{passed} passed, {failed} failed ({names}; seeds {seeds[0]}-{seeds[1]}, strategy {sweep['strategy']})"


def soak_summary(soak):
    cases = sum(entry["cases"] for entry in soak["combinations"])
    buckets = len(soak["buckets"])
    return (f"{cases:,} cases over {len(soak['combinations'])} combinations of suite, strategy and mix in "
            f"{soak['duration_seconds']} s, seeds from {soak['seeds']['first']}: "
            f"{buckets} bucket{'' if buckets == 1 else 's'}")


def bench_summary(report):
    if isinstance(report, dict):  # scripts/bench --base: two revisions paired
        cases = report["cases"]
        paired = sum(1 for case in cases if case["ratio"] is not None)
        return (f"base {report['base']['sha'][:12]} against head {report['head']['sha'][:12]}: "
                f"{paired} of {len(cases)} figures paired")
    on = {row["tracks"]: row["instructions_per_poll"] for row in report
          if row["case"] == "idle" and row["gates"] == "on"}
    return f"a gated idle poll of 16 tracks: {on[16]:,.1f} instructions"


# Each report: its title, what it is, the script that makes it, its files (the first is
# the one to open), and the file and function of its summary.
REPORTS = [
    ("Mutation testing", "every mutation site switched off in turn against the unit tests and a "
     "short sweep of every suite, in the standard report viewer", "scripts/mutate",
     [("mutation.html", "report (HTML)", "scripts/report"), ("mutation.md", "table", None),
      ("mutation.json", "mutation-testing report schema", None), ("mutation.png", "screenshot", "scripts/report"),
      ("mutation-source.png", "screenshot of a file's source with its sites", "scripts/report")],
     ("mutation.json", mutation_summary)),
    ("Site coverage", "how often each suite's sweep evaluates each mutation site, and the sites "
     "no sweep reaches", "scripts/mutate",
     [("sites.md", "table", None), ("mutation.html#sites", "in the mutation report", "scripts/report"),
      ("sites.json", "counts", None)],
     ("sites.json", sites_summary)),
    ("Line and branch coverage", "gcovr's coverage of core/ by every test and a short sweep",
     "scripts/coverage",
     [("coverage/index.html", "report (HTML)", None), ("coverage/summary.json", "totals", None),
      ("coverage/coverage.json", "per line and branch", None)],
     ("coverage/summary.json", coverage_summary)),
    ("Benchmarks", "instructions per poll of an export task, idle gates on and off; or, with "
     "--base REV, two revisions' fanout and idle-export figures side by side",
     "scripts/bench", [("bench.md", "table", None), ("bench.json", "rows", None),
                       ("bench.svg", "chart of both revisions per case", "scripts/bench --base REV")],
     ("bench.json", bench_summary)),
    ("Simulator throughput", "fiber switches and simulated polls per second", "scripts/bench --sim",
     [("sim.md", "table", None), ("sim.json", "rows", None)], None),
    ("Last sweep", "the result of the last seeded sweep (moqsim sweep --json)", "scripts/sweep",
     [("sweep.json", "result", None)], ("sweep.json", sweep_summary)),
    ("Probes", "the core's named rare paths and states (MOQ_PROBE, MOQ_SOMETIMES): how often each suite's "
     "last sweep hit each, the first case that did, and the probes no sweep hit", "scripts/sweep",
     [("probes.html", "report (HTML)", "scripts/report"), ("probes.md", "table", "scripts/report"),
      ("probes.json", "counts (moqsim sweep --probes)", None)],
     ("probes.json", probes_summary)),
    ("Soak", "every suite under every strategy and mix on fresh seeds for a while: the cases run and "
     "every bucket of failures, with its replay command and the timeline of its smallest case", "scripts/soak",
     [("soak.html", "report (HTML)", None), ("soak.md", "table and buckets", None), ("soak.json", "result", None)],
     ("soak.json", soak_summary)),
]

STYLE = """h2 { margin-bottom: 0.2em; }
.what { color: #555; margin-top: 0; }
.missing { color: #a33; }
.summary { font-weight: 600; }
"""
INTRO = """<p>Every report the scripts write into this folder. <code>scripts/report</code> rewrites the HTML
mutation report and this page from the reports already here.</p>"""


def exists(folder, target):
    return os.path.exists(os.path.join(folder, target.split("#", 1)[0]))


def section(folder, title, what, script, files, summary):
    escape = html.escape
    lines = [f"<section>\n<h2>{escape(title)}</h2>", f'<p class="what">{escape(what)}</p>']
    present = [entry for entry in files if exists(folder, entry[0])]
    if not present:
        lines.append(f'<p class="missing">not generated yet: run <code>{escape(script)}</code></p>')
        return "\n".join(lines) + "\n</section>"
    if summary:
        data = read_json(folder, summary[0])
        try:
            text = summary[1](data) if data is not None else None
        except (KeyError, TypeError, ValueError, AttributeError, IndexError, ZeroDivisionError):
            text = None  # a report of another shape: its files are still linked
        if text:
            lines.append(f'<p class="summary">{escape(text)}</p>')
    lines.append("<ul>")
    for target, label, maker in files:
        if exists(folder, target):
            lines.append(f'<li><a href="{escape(target)}">{escape(target)}</a>: {escape(label)}</li>')
        else:
            lines.append(f'<li class="missing">{escape(target)}: not generated yet: run '
                         f'<code>{escape(maker or script)}</code></li>')
    lines.append("</ul>")
    return "\n".join(lines) + "\n</section>"


def index_page(folder):
    sections = "\n".join(section(folder, *report) for report in REPORTS)
    return html_page("moqsim reports", f"{INTRO}\n{sections}", STYLE)


def write_index(folder):
    write_reports(folder, [("index.html", index_page(folder))])


def main():
    if len(sys.argv) != 2:
        print("usage: report_index.py REPORT_DIR", file=sys.stderr)
        sys.exit(2)
    folder = sys.argv[1]
    if not os.path.isdir(folder):
        print(f"report_index: no folder {folder}", file=sys.stderr)
        sys.exit(2)
    write_index(folder)


if __name__ == "__main__":
    main()
