#!/usr/bin/env python3
"""The report of `scripts/bench --base REV`: two revisions' benchmarks side by side.

Usage: python3 -m moqtools.bench_pair RESULTS REPORT_DIR [--compare COMPARE_PY]

RESULTS is the folder the paired run filled:
  meta.json             {"base": {"rev", "sha"}, "head": {"rev", "sha", "dirty"}, "rounds",
                        "repetitions", "idle_polls", "active_polls", "compiler", "tool",
                        "load": [load average before, after]}
  fanout-REV-K.json     Google Benchmark's JSON of session_fanout, revision REV (base or
                        head), round K; none for a revision = it has no such bench
  idle-REV.txt          one line per idle_export case: CASE TRACKS GATES POLLS I(0) I(N),
                        callgrind's instruction totals; missing = no idle_export
  profile-REV.json      idle_profile.py's per-function counts of an idle pass (optional;
                        both present = a section "per function" in bench.md and a
                        `profile` part in bench.json)

Writes REPORT_DIR/bench.md, bench.json and bench.svg together (or none of them), and
prints the table. With --compare it also pairs the fanout runs with Google Benchmark's
compare.py (run by Debian's python3, which has the scipy it needs) and puts its output
in bench.md. A case one revision lacks is "absent" there: no figure, no ratio.
"""

import json
import os
import re
import statistics
import subprocess
import sys
from xml.sax.saxutils import escape

from .bench_targets import target_lines
from .idle_profile import section as profile_lines
from .reports import write_reports

REVISIONS = ("base", "head")
NANOSECONDS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
# Google Benchmark appends how it measured to a case's name.
MEASURED_BY = re.compile(r"(/(process_time|real_time|manual_time))+$")
# The counter that says how many deliveries a round made, and what one is called.
DELIVERED = (("groups", "group"), ("wakes", "wake"))


def case_name(run):
    return MEASURED_BY.sub("", run.get("run_name") or run["name"])


def fanout_runs(results, revision):
    """Every repetition of every case of one revision's fanout runs, in round order:
    {case: [{"cpu_ns", "wall_ns", "delivered", "unit"}, ...]}; None if it ran none."""
    files = sorted((name for name in os.listdir(results) if re.fullmatch(rf"fanout-{revision}-\d+\.json", name)),
                   key=lambda name: int(re.findall(r"\d+", name)[-1]))
    if not files:
        return None
    cases = {}
    for name in files:
        with open(os.path.join(results, name), encoding="utf-8") as handle:
            report = json.load(handle)
        for run in report["benchmarks"]:
            if run.get("run_type", "iteration") != "iteration" or run.get("error_occurred"):
                continue
            scale = NANOSECONDS[run.get("time_unit", "ns")]
            delivered, unit = next(((run[key], unit) for key, unit in DELIVERED if key in run), (None, None))
            cases.setdefault(case_name(run), []).append({
                "cpu_ns": run["cpu_time"] * scale, "wall_ns": run["real_time"] * scale,
                "delivered": delivered, "unit": unit})
    return cases


def idle_runs(results, revision):
    """{(case, tracks, gates): instructions per poll} of one revision; None if absent."""
    path = os.path.join(results, f"idle-{revision}.txt")
    if not os.path.exists(path):
        return None
    per_poll = {}
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            which, tracks, gates, polls, zero, total = line.split()
            per_poll[(which, int(tracks), gates)] = round((int(total) - int(zero)) / int(polls), 1)
    return per_poll


def split(case):
    """("session_fanout_threads", 16) from "session_fanout_threads/workers=16"."""
    match = re.fullmatch(r"(.*)/workers=(\d+)", case)
    return (match.group(1), int(match.group(2))) if match else (case, None)


def fanout_figures(runs):
    """{case: {"cpu_us", "per_delivered_ns", "wall_us", "unit"}}: medians of the repetitions."""
    figures = {}
    for case, reps in (runs or {}).items():
        per = [rep["cpu_ns"] / rep["delivered"] for rep in reps if rep["delivered"]]
        figures[case] = {
            "cpu_us": statistics.median(rep["cpu_ns"] for rep in reps) / 1e3,
            "wall_us": statistics.median(rep["wall_ns"] for rep in reps) / 1e3,
            "per_delivered_ns": statistics.median(per) if per else None,
            "unit": reps[0]["unit"],
        }
    return figures


def ordered_cases(*case_sets):
    """Cases in the order they first appear, each family's workers in ascending order."""
    families = []
    workers = {}
    for cases in case_sets:
        for case in cases:
            family, count = split(case)
            if family not in workers:
                families.append(family)
                workers[family] = set()
            workers[family].add(count)
    return [(family, sorted(workers[family], key=lambda n: (n is None, n))) for family in families]


def row(bench, case, metric, unit, base, head):
    absent = [name for name, value in zip(REVISIONS, (base, head)) if value is None]
    ratio = head / base if not absent and base else None
    return {"bench": bench, "case": case, "metric": metric, "unit": unit, "base": base, "head": head,
            "ratio": None if ratio is None else round(ratio, 4), "absent": absent}


def fanout_rows(base_runs, head_runs):
    base, head = fanout_figures(base_runs), fanout_figures(head_runs)
    rows = []
    for family, worker_counts in ordered_cases(head, base):
        unit = next((f[case]["unit"] for f in (head, base) for case in f if split(case)[0] == family), None)
        for count in worker_counts:
            case = family if count is None else f"{family}/workers={count}"
            b, h = base.get(case), head.get(case)
            for metric, key, shown, digits in (("process CPU per round", "cpu_us", "µs", 1),
                                               (f"CPU per delivered {unit}", "per_delivered_ns", "ns", 0),
                                               ("wall time per round", "wall_us", "µs", 1)):
                if key == "per_delivered_ns" and unit is None:
                    continue
                values = [None if f is None or f[key] is None else round(f[key], digits) for f in (b, h)]
                rows.append(row("session_fanout", case, metric, shown, *values))
        if 1 in worker_counts and 16 in worker_counts:
            values = []
            for figures in (base, head):
                one, many = figures.get(f"{family}/workers=1"), figures.get(f"{family}/workers=16")
                values.append(round(many["cpu_us"] / one["cpu_us"], 3) if one and many and one["cpu_us"] else None)
            rows.append(row("session_fanout", family, "process CPU, workers=16 / workers=1", "x", *values))
    return rows


def idle_rows(base_idle, head_idle):
    keys = list((head_idle or {}).keys()) + [key for key in (base_idle or {}) if key not in (head_idle or {})]
    rows = []
    for which, tracks, gates in keys:
        values = [None if runs is None else runs.get((which, tracks, gates)) for runs in (base_idle, head_idle)]
        # An active round is one pass that reads a frame from every track.
        metric = "instructions per poll" if which == "idle" else "instructions per round"
        name = f"{which}, {tracks} track{'s' if tracks != 1 else ''}, gates {gates}"
        rows.append(row("idle_export", name, metric, "instructions", *values))
    if base_idle is None and head_idle is None:
        rows.append(row("idle_export", "every case", "instructions per poll", "instructions", None, None))
    return rows


def pair_rows(results):
    rows = fanout_rows(fanout_runs(results, "base"), fanout_runs(results, "head"))
    if not rows:
        rows.append(row("session_fanout", "every case", "process CPU per round", "µs", None, None))
    return rows + idle_rows(idle_runs(results, "base"), idle_runs(results, "head"))


def number(value, unit):
    if value is None:
        return "absent"
    if unit == "x":
        return f"{value:.2f}"
    if unit == "ns" or (unit == "instructions" and value >= 1000):
        return f"{value:,.0f}"
    return f"{value:,.1f}"


def ratio_text(entry):
    return "n/a" if entry["ratio"] is None else f"{entry['ratio']:.3f}"


def label(entry):
    return f"{entry['case']}: {entry['metric']}"


def revision_text(meta, revision):
    side = meta[revision]
    text = f"{side['rev']} ({side['sha'][:12]})"
    return text + (" with uncommitted changes" if side.get("dirty") else "")


def markdown_table(rows):
    lines = ["| bench | case | figure | unit | base | head | head / base |", "|---|---|---|---|---:|---:|---:|"]
    for entry in rows:
        lines.append(f"| {entry['bench']} | {entry['case']} | {entry['metric']} | {entry['unit']} "
                     f"| {number(entry['base'], entry['unit'])} | {number(entry['head'], entry['unit'])} "
                     f"| {ratio_text(entry)} |")
    return lines


def profiles(results):
    """{"base": profile, "head": profile} when both revisions were profiled, else None."""
    found = {}
    for revision in REVISIONS:
        path = os.path.join(results, f"profile-{revision}.json")
        if not os.path.exists(path):
            return None
        with open(path, encoding="utf-8") as handle:
            found[revision] = json.load(handle)
    return found


def profile_section(profiled):
    return profile_lines([profiled["base"], profiled["head"]], list(REVISIONS)) if profiled else []


def markdown(meta, rows, compared, targets=None, profiled=None):
    load = meta.get("load") or []
    text = [
        "# Benchmarks of two revisions",
        "",
        "`scripts/bench --base REV`: both revisions built in release, their benches run in",
        "one session. `session_fanout` ran interleaved (base, head, base, head ...),",
        f"{meta['rounds']} round(s) of {meta['repetitions']} repetition(s) each; its figures are the medians of",
        "every repetition of a revision: process CPU per round (all threads), that over the",
        "deliveries a round makes (the `groups` or `wakes` counter), wall time per round, and",
        "the process CPU at 16 workers over that at one. `idle_export`: callgrind's",
        "instructions per idle poll or active round, (I(N) - I(0)) / N, one run of each",
        "revision per case, alternating.",
        "",
        f"- base: {revision_text(meta, 'base')}",
        f"- head: {revision_text(meta, 'head')}",
        f"- N: {meta['idle_polls']:,} idle passes, {meta['active_polls']:,} active rounds",
        f"- Build: release, {meta.get('compiler', 'unknown')}; {meta.get('tool', 'valgrind')}",
    ]
    if load:
        text.append(f"- Load average (1, 5, 15 min) before and after the fanout runs: {' / '.join(load)}")
    text += ["", *markdown_table(rows), "", "A chart of the same figures: [bench.svg](bench.svg).", ""]
    if targets:
        text += ["Targets (issue 13), head's figures:", "", *targets, ""]
    text += profile_section(profiled)
    if compared:
        # Its first line names the temporary files it read.
        table = [line for line in compared.rstrip("\n").splitlines() if not line.startswith("Comparing ")]
        text += ["Google Benchmark's `compare.py` over the same fanout runs (time and CPU columns:",
                 "relative change, head against base; the U test over the repetitions):", "", "```", *table,
                 "```", ""]
    return "\n".join(text)


def report_json(meta, rows, profiled=None):
    keep = ("rounds", "repetitions", "idle_polls", "active_polls", "compiler", "tool", "load")
    report = {"base": meta["base"], "head": meta["head"], **{k: meta[k] for k in keep if k in meta}, "cases": rows}
    if profiled:
        report["profile"] = profiled
    return json.dumps(report, indent=2, ensure_ascii=False) + "\n"


# The chart: one panel per kind of figure (each its own scale), in each a row per case
# with a bar per revision, the value at its end.
COLOURS = {"base": "#7b8fc4", "head": "#e8804f"}
WIDTH, LABEL_WIDTH, BAR_HEIGHT, GAP = 980, 400, 13, 10
PLOT_WIDTH = WIDTH - LABEL_WIDTH - 120


def panels(rows):
    """[(title, rows)]: the rows of each kind of figure, in the order the kinds appear."""
    found = {}
    for entry in rows:
        title = f"{entry['bench']}: {entry['metric']}" + ("" if entry["unit"] == "x" else f" ({entry['unit']})")
        found.setdefault(title, []).append(entry)
    return list(found.items())


def svg(meta, rows):
    parts = []
    y = 30
    parts.append(f'<text x="10" y="{y}" class="title">Two revisions, per case: base against head</text>')
    parts.append(f'<text x="{WIDTH - 10}" y="{y}" text-anchor="end" class="value">×: head / base</text>')
    y += 24
    for offset, revision in enumerate(REVISIONS):
        x = 10 + offset * 470
        parts.append(f'<rect class="legend {revision}" x="{x}" y="{y - 11}" width="14" height="12" '
                     f'fill="{COLOURS[revision]}"/>')
        parts.append(f'<text x="{x + 20}" y="{y}">{revision}: {escape(revision_text(meta, revision))}</text>')
    y += 16
    for title, entries in panels(rows):
        y += 22
        parts.append(f'<text x="10" y="{y}" class="panel">{escape(title)}</text>')
        y += 8
        top = max([entry[r] for entry in entries for r in REVISIONS if entry[r] is not None] or [0])
        for entry in entries:
            parts.append(f'<text x="{LABEL_WIDTH - 8}" y="{y + BAR_HEIGHT + 4}" text-anchor="end">'
                         f'{escape(entry["case"])}</text>')
            for offset, revision in enumerate(REVISIONS):
                value = entry[revision]
                width = 0.0 if value is None or top <= 0 else PLOT_WIDTH * value / top
                bar_y = y + offset * (BAR_HEIGHT + 1)
                absent = " absent" if value is None else ""
                parts.append(f'<rect class="bar {revision}{absent}" data-case="{escape(label(entry))}" '
                             f'x="{LABEL_WIDTH}" y="{bar_y}" width="{width:.1f}" height="{BAR_HEIGHT}" '
                             f'fill="{COLOURS[revision]}"><title>{revision}: '
                             f'{escape(number(value, entry["unit"]))}</title></rect>')
                parts.append(f'<text x="{LABEL_WIDTH + width + 4:.1f}" y="{bar_y + BAR_HEIGHT - 2}" '
                             f'class="value">{escape(number(value, entry["unit"]))}</text>')
            if entry["ratio"] is not None:
                parts.append(f'<text x="{WIDTH - 10}" y="{y + BAR_HEIGHT + 4}" text-anchor="end" class="value">'
                             f'×{entry["ratio"]:.2f}</text>')
            y += 2 * BAR_HEIGHT + GAP
    y += 10
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{y}" viewBox="0 0 {WIDTH} {y}" '
            'font-family="sans-serif" font-size="12">\n'
            '<style>.title { font-size: 16px; font-weight: bold; } .panel { font-weight: bold; } '
            '.value { fill: #333; font-size: 11px; }</style>\n'
            f'<rect x="0" y="0" width="{WIDTH}" height="{y}" fill="white"/>\n')
    return head + "\n".join(parts) + "\n</svg>\n"


def merged_for_compare(results, revision):
    """One Google Benchmark JSON of every round's repetitions of a revision, with their
    median as the aggregate compare.py shows; None if the revision ran none."""
    files = sorted(name for name in os.listdir(results) if re.fullmatch(rf"fanout-{revision}-\d+\.json", name))
    if not files:
        return None
    context, iterations = None, []
    for name in files:
        with open(os.path.join(results, name), encoding="utf-8") as handle:
            report = json.load(handle)
        context = context or report.get("context", {})
        iterations += [run for run in report["benchmarks"] if run.get("run_type", "iteration") == "iteration"]
    medians = []
    for name in dict.fromkeys(run["name"] for run in iterations):
        runs = [run for run in iterations if run["name"] == name]
        median = dict(runs[0], run_type="aggregate", aggregate_name="median", aggregate_unit="time",
                      name=f"{name}_median", repetitions=len(runs))
        median.pop("repetition_index", None)
        for key in ("real_time", "cpu_time"):
            median[key] = statistics.median(run[key] for run in runs)
        medians.append(median)
    path = os.path.join(results, f"merged-{revision}.json")
    with open(path, "w", encoding="utf-8") as handle:
        json.dump({"context": context, "benchmarks": iterations + medians}, handle)
    return path


def compare(results, compare_py):
    """compare.py's table of the two revisions' fanout runs, or None if one has none."""
    paths = [merged_for_compare(results, revision) for revision in REVISIONS]
    if None in paths:
        return None
    run = subprocess.run(["/usr/bin/python3", compare_py, "--no-color", "-a", "benchmarks", *paths],
                         capture_output=True, text=True, check=False)
    if run.returncode != 0:
        sys.stderr.write(run.stdout + run.stderr)
        raise RuntimeError(f"compare.py failed (status {run.returncode})")
    return run.stdout


def main(argv):
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--compare"):
        print("usage: bench_pair.py RESULTS REPORT_DIR [--compare COMPARE_PY]", file=sys.stderr)
        return 2
    results, reports = argv[0], argv[1]
    with open(os.path.join(results, "meta.json"), encoding="utf-8") as handle:
        meta = json.load(handle)
    rows = pair_rows(results)
    compared = compare(results, argv[3]) if len(argv) == 4 else None
    head_idle = idle_runs(results, "head")
    # A base without idle_export is a base with no figures, not a run of one revision.
    targets = target_lines(head_idle, idle_runs(results, "base") or {}) if head_idle is not None else None
    profiled = profiles(results)
    write_reports(reports, [("bench.md", markdown(meta, rows, compared, targets, profiled)),
                            ("bench.json", report_json(meta, rows, profiled)), ("bench.svg", svg(meta, rows))])
    if compared:
        print(compared.rstrip("\n"))
        print()
    print(f"base: {revision_text(meta, 'base')}; head: {revision_text(meta, 'head')}")
    print("\n".join(markdown_table(rows)))
    print()
    if targets:
        print("\n".join(targets))
        print()
    if profiled:
        print("\n".join(profile_section(profiled)))
    print("bench: wrote reports/bench.md, reports/bench.json and reports/bench.svg")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
