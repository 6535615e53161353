#!/usr/bin/env python3
"""Probes: how often each suite's sweep hit each named rare path and state of the core.

  python3 -m moqtools.probes check EXPECTED FILE [FILE...]
  python3 -m moqtools.probes expected FILE [FILE...] [--divisor K]
  python3 -m moqtools.probes report FILE [FILE...] --markdown OUT.md --html OUT.html

Each FILE is what `moqsim sweep --probes FILE` writes (format moqsim-probes): every probe
(MOQ_PROBE: kind path; MOQ_SOMETIMES: kind state), how often each suite's sweep hit it and
the first case that did. Several files (separate sweeps, one a suite as scripts/check runs
them) are joined: their suites put together, a suite named twice with its hits added and
the earlier first case (by seed, then case) kept.

check: EXPECTED (scripts/expected-probes.txt) holds `PROBE SUITE MIN` a line (`#` starts a
comment): SUITE's sweep must hit PROBE at least MIN times. Prints each shortfall (too few
hits, a probe the files do not know, a suite no file swept), the probes the list leaves
out, then "probes: N expected, M short"; exit 1 when one is short.
expected: prints such a list made from the files, MIN = max(1, hits // K) (K 4 unless
--divisor), the probes no sweep hit as comments: how the list is made again after a
deliberate change.
report: the table of every probe by suite, as Markdown and as one self-contained HTML page.
Bad input: one line on stderr, exit 2, nothing written.
"""

import argparse
import html
import os
import re
import shlex
import sys

from .reports import html_page, write_reports
from .site_coverage import load_json

KINDS = ("path", "state")


def whole(value):
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def check_probe_hits(data):
    """Raises ValueError unless data has the shape moqsim writes."""
    if not isinstance(data, dict) or data.get("format") != "moqsim-probes":
        raise ValueError("not a moqsim probes file (format moqsim-probes)")
    if data.get("version") != 1:
        raise ValueError(f"unknown probes version {data.get('version')!r} (this reads version 1)")
    probes, suites = data.get("probes"), data.get("suites")
    if not isinstance(probes, list) or not isinstance(suites, list):
        raise ValueError("a probes file needs the lists 'probes' and 'suites'")
    names = set()
    for probe in probes:
        if not isinstance(probe, dict) or not all(isinstance(probe.get(key), str) for key in ("name", "file")) \
                or probe.get("kind") not in KINDS or not whole(probe.get("line")):
            raise ValueError("every probe needs name, kind (path or state), file and line")
        if probe["name"] in names:
            raise ValueError(f"probe {probe['name']} is listed twice")
        names.add(probe["name"])
    for suite in suites:
        if not isinstance(suite, dict) or not isinstance(suite.get("suite"), str) \
                or not isinstance(suite.get("hits"), dict) or not isinstance(suite.get("first"), dict) \
                or not whole(suite.get("cases")) or not whole(suite.get("run")):
            raise ValueError("every suite needs its name, 'cases', 'run', 'hits' and 'first'")
        hits = suite["hits"]
        if set(hits) != names or not all(whole(n) for n in hits.values()):
            raise ValueError(f"suite {suite['suite']}: 'hits' must count every probe once")
        for name, first in suite["first"].items():
            if not hits.get(name) or not isinstance(first, dict) or not whole(first.get("seed")) \
                    or not whole(first.get("case")) or not isinstance(first.get("replay"), str):
                raise ValueError(f"suite {suite['suite']}: 'first' of {name} must be the seed, case and replay "
                                 "of a probe the suite hit")


def describe_sweep(data):
    """A file's sweep settings in words: "seeds 1-4, strategy random, mix fixed"."""
    seeds = data.get("seeds")
    if isinstance(seeds, list) and len(seeds) == 2:
        parts = [f"seed {seeds[0]}" if seeds[0] == seeds[1] else f"seeds {seeds[0]}-{seeds[1]}"]
    else:
        parts = ["its seeds"]
    parts += [f"{key} {data[key]}" for key in ("strategy", "mix", "mutant") if data.get(key)]
    shard = data.get("shard")
    if isinstance(shard, dict) and shard.get("total", 1) != 1:
        parts.append(f"shard {shard.get('index')} of {shard.get('total')}")
    return ", ".join(parts)


def join(files):
    """One view of several checked files ((path, data) pairs): the probes by name (every file
    must name the same ones), each suite once, and the sweeps' settings in words."""
    first_path, first_data = files[0]
    probes = sorted(first_data["probes"], key=lambda probe: probe["name"])
    names = [probe["name"] for probe in probes]
    suites = {}
    for path, data in files:
        if {probe["name"] for probe in data["probes"]} != set(names):
            raise ValueError(f"{path} names other probes than {first_path} (a sweep of another build?)")
        for suite in data["suites"]:
            joined = suites.setdefault(suite["suite"], {"suite": suite["suite"], "run": 0,
                                                        "hits": dict.fromkeys(names, 0), "first": {}})
            joined["run"] += suite["run"]
            for name, n in suite["hits"].items():
                joined["hits"][name] += n
            for name, case in suite["first"].items():
                kept = joined["first"].get(name)
                if kept is None or (case["seed"], case["case"]) < (kept["seed"], kept["case"]):
                    joined["first"][name] = case
    sweeps = list(dict.fromkeys(describe_sweep(data) for _, data in files))
    return {"probes": probes, "suites": list(suites.values()), "sweeps": sweeps}


def load(paths):
    files = []
    for path in paths:
        try:
            data = load_json(path, "probes file")  # its errors name the file
        except UnicodeDecodeError as error:
            raise ValueError(f"the probes file {path} is not UTF-8 text ({error.reason})") from error
        try:
            check_probe_hits(data)
        except ValueError as error:
            raise ValueError(f"{path}: {error}") from error
        files.append((path, data))
    return join(files)


def total(joined, name):
    return sum(suite["hits"][name] for suite in joined["suites"])


def never_hit(joined):
    return [probe for probe in joined["probes"] if total(joined, probe["name"]) == 0]


def first_hit(joined, name):
    """(suite, first case) of the earliest case (by seed, case) of any suite that hit the probe, or None."""
    found = [(suite["first"][name]["seed"], suite["first"][name]["case"], i) for i, suite in
             enumerate(joined["suites"]) if name in suite["first"]]
    if not found:
        return None
    suite = joined["suites"][min(found)[2]]
    return suite["suite"], suite["first"][name]


def sweeps_text(joined):
    runs = ", ".join(f"{suite['suite']} {suite['run']:,}" for suite in joined["suites"]) or "no suite"
    return f"{'; '.join(joined['sweeps'])} (cases run: {runs})"


def summary(joined):
    """E.g. 40 probes (30 paths, 10 states), 34 hit by at least one suite's sweep (26 paths, 8 states)."""
    probes = joined["probes"]
    hit = [probe for probe in probes if total(joined, probe["name"]) > 0]

    def by_kind(chosen):
        counts = [(sum(p["kind"] == kind for p in chosen), kind) for kind in KINDS
                  if any(p["kind"] == kind for p in probes)]
        return ", ".join(f"{n} {kind}{'' if n == 1 else 's'}" for n, kind in counts)
    return (f"{len(probes)} probes ({by_kind(probes)}), {len(hit)} hit by at least one suite's sweep "
            f"({by_kind(hit)})")


# check

def read_expected(path):
    """[(probe, suite, least, line number)] of an expected list; a bad line is a ValueError naming it."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as error:
        raise ValueError(f"cannot read the expected list {path}: {error.strerror}") from error
    except UnicodeDecodeError as error:
        raise ValueError(f"{path}: not UTF-8 text ({error.reason})") from error
    entries, seen = [], {}
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split("#", 1)[0].split()
        if not fields:
            continue
        where = f"{path}:{number}"
        if len(fields) != 3:
            raise ValueError(f"{where}: expected 'PROBE SUITE MIN', not {line.strip()!r}")
        probe, suite, least = fields
        if not re.fullmatch(r"[0-9]+", least) or int(least) < 1:
            raise ValueError(f"{where}: MIN must be a whole number of at least 1, not {least!r}")
        if (probe, suite) in seen:
            raise ValueError(f"{where}: {probe} {suite} is listed already on line {seen[probe, suite]}")
        seen[probe, suite] = number
        entries.append((probe, suite, int(least), number))
    return entries


def times(n):
    return f"{n:,} time" + ("" if n == 1 else "s")


def shortfalls(joined, entries, path):
    """One line for each entry of the expected list the sweeps fall short of."""
    names = {probe["name"] for probe in joined["probes"]}
    suites = {suite["suite"]: suite for suite in joined["suites"]}
    short = []
    for probe, suite, least, number in entries:
        where = f"({path}:{number})"
        if probe not in names:
            short.append(f"{probe}: no such probe in the sweeps (removed or renamed?), expected at least "
                         f"{least} hits by the {suite} sweep {where}")
        elif suite not in suites:
            short.append(f"{probe}: no file holds a sweep of the {suite} suite, expected at least {least} "
                         f"hits by it {where}")
        elif suites[suite]["hits"][probe] < least:
            short.append(f"{probe}: hit {times(suites[suite]['hits'][probe])} by the {suite} sweep, "
                         f"expected at least {least} {where}")
    return short


def unlisted(joined, entries):
    """The probes the files know that the expected list never names, "(never hit)" marked."""
    listed = {entry[0] for entry in entries}
    return [probe["name"] + ("" if total(joined, probe["name"]) else " (never hit)")
            for probe in joined["probes"] if probe["name"] not in listed]


def check(expected_path, paths):
    entries = read_expected(expected_path)
    joined = load(paths)
    short = shortfalls(joined, entries, expected_path)
    for line in short:
        print(f"probes: {line}")
    extra = unlisted(joined, entries)
    if extra:
        print("probes: not in the expected list: " + ", ".join(extra))
    print(f"probes: {len(entries)} expected, {len(short)} short")
    return 1 if short else 0


# expected

def expected_text(joined, command, divisor):
    rows = sorted((probe["name"], suite["suite"], max(1, suite["hits"][probe["name"]] // divisor))
                  for probe in joined["probes"] for suite in joined["suites"] if suite["hits"][probe["name"]])
    lines = ["# The probes each suite's sweep must hit: PROBE SUITE MIN, at least MIN hits by SUITE's sweep",
             "# (python3 -m moqtools.probes check EXPECTED FILE... reads it).",
             f"# Made by: {command}",
             f"# from the sweeps of {sweeps_text(joined)};",
             f"# MIN is the hits there divided by {divisor}, at least 1. After a deliberate change, make it again.",
             ""]
    probe_width = max((len(row[0]) for row in rows), default=0)
    suite_width = max((len(row[1]) for row in rows), default=0)
    lines += [f"{probe.ljust(probe_width)}  {suite.ljust(suite_width)}  {least}" for probe, suite, least in rows]
    missing = never_hit(joined)
    if missing:
        lines += [""] + [f"# never hit: {probe['name']} ({probe['file']}:{probe['line']})" for probe in missing]
    return "\n".join(lines) + "\n"


# report

def first_text(joined, name):
    found = first_hit(joined, name)
    if not found:
        return "never hit", None
    suite, case = found
    return f"{suite} seed {case['seed']} case {case['case']}", case["replay"]


def probes_markdown(joined):
    names = [suite["suite"] for suite in joined["suites"]]
    lines = ["# Probes", "",
             f"Rare paths (`MOQ_PROBE`) and states (`MOQ_SOMETIMES`) of the core: how often each suite's sweep "
             f"hit each, and the first case that did. {summary(joined)}; sweeps of {sweeps_text(joined)}.", "",
             "| probe | kind | where | " + "".join(f"{name} | " for name in names) + "total | first hit |",
             "| --- | --- | --- | " + "---: | " * len(names) + "---: | --- |"]
    for probe in joined["probes"]:
        name = probe["name"]
        cells = "".join(f"{suite['hits'][name]:,} | " for suite in joined["suites"])
        first, replay = first_text(joined, name)
        hits = total(joined, name)
        lines.append(f"| `{name}` | {probe['kind']} | {probe['file']}:{probe['line']} | {cells}"
                     f"{f'{hits:,}' if hits else '**0**'} | {first + (f': `{replay}`' if replay else '')} |")
    lines += ["", "## Probes no sweep hit", ""]
    missing = never_hit(joined)
    lines += [f"- `{probe['name']}` ({probe['kind']}, {probe['file']}:{probe['line']})" for probe in missing] \
        or ["Every probe is hit by at least one suite's sweep."]
    return "\n".join(lines) + "\n"


STYLE = """.table { overflow-x: auto; }
table { border-collapse: collapse; }
td, th { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: right; vertical-align: top; }
.text { text-align: left; }
td.zero { color: #999; }
tr.never td { background: #fde8e8; }
.mark { color: #a33; font-weight: 600; }
code { background: #f4f4f4; padding: 0 0.2em; word-break: break-all; }
"""


def probes_html(joined):
    escape = html.escape
    rows = []
    for probe in joined["probes"]:
        name = probe["name"]
        counts = [suite["hits"][name] for suite in joined["suites"]]
        cells = "".join(f'<td class="{"zero" if n == 0 else "some"}">{n:,}</td>' for n in counts)
        first, replay = first_text(joined, name)
        if replay:
            first_cell = f"{escape(first)}<br><code>{escape(replay)}</code>"
        else:
            first_cell = f'<span class="mark">{escape(first)}</span>'
        hits = total(joined, name)
        row_class = "" if hits else ' class="never"'
        rows.append(f'<tr{row_class}><td class="text"><code>{escape(name)}</code></td>'
                    f'<td class="text">{escape(probe["kind"])}</td>'
                    f'<td class="text">{escape(probe["file"])}:{probe["line"]}</td>{cells}'
                    f'<td>{hits:,}</td><td class="text">{first_cell}</td></tr>')
    missing = never_hit(joined)
    if missing:
        never_html = "<ul>" + "".join(f'<li><code>{escape(probe["name"])}</code> ({escape(probe["kind"])}, '
                                      f'{escape(probe["file"])}:{probe["line"]})</li>' for probe in missing) + "</ul>"
    else:
        never_html = "<p>Every probe is hit by at least one suite's sweep.</p>"
    body = (f'<p>Rare paths (<code>MOQ_PROBE</code>) and states (<code>MOQ_SOMETIMES</code>) of the core: how '
            f"often each suite's sweep hit each, and the first case that did, with the command that replays it. "
            f"A red row: no sweep hit that probe.</p>\n"
            f'<p class="summary"><strong>{escape(summary(joined))}</strong>; sweeps of '
            f"{escape(sweeps_text(joined))}.</p>\n"
            f'<div class="table"><table>\n<thead><tr><th class="text">probe</th><th class="text">kind</th>'
            f'<th class="text">where</th>' + "".join(f"<th>{escape(suite['suite'])}</th>" for suite in joined["suites"])
            + '<th>total</th><th class="text">first hit</th></tr></thead>\n<tbody>\n' + "\n".join(rows)
            + f"\n</tbody>\n</table></div>\n<h2>Probes no sweep hit</h2>\n{never_html}")
    return html_page("moqsim probes", body, STYLE, width="90em")


def write_files(outputs):
    """Each (path, text) written whole, through write_reports, one call a folder."""
    by_folder = {}
    for path, text in outputs:
        by_folder.setdefault(os.path.dirname(os.path.abspath(path)), []).append((os.path.basename(path), text))
    for folder, files in by_folder.items():
        write_reports(folder, files)


def report(paths, markdown_path, html_path):
    if os.path.abspath(markdown_path) == os.path.abspath(html_path):
        raise ValueError("--markdown and --html name the same file")
    joined = load(paths)
    write_files([(markdown_path, probes_markdown(joined)), (html_path, probes_html(joined))])
    missing = never_hit(joined)
    print(f"probes: {len(joined['probes']) - len(missing)} of {len(joined['probes'])} probes hit by a sweep; "
          f"reports in {os.path.relpath(markdown_path)} and {os.path.relpath(html_path)}")
    for probe in missing:
        print(f"probes: no sweep hits {probe['name']} ({probe['file']}:{probe['line']})")
    return 0


def divisor(text):
    if not re.fullmatch(r"[0-9]+", text) or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of at least 1, not {text!r}")
    return int(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    checking = sub.add_parser("check", help="check the sweeps' hits against an expected list")
    checking.add_argument("expected", help="the expected list (scripts/expected-probes.txt)")
    checking.add_argument("files", nargs="+", help="moqsim sweep --probes files")
    making = sub.add_parser("expected", help="print an expected list made from the sweeps' hits")
    making.add_argument("files", nargs="+", help="moqsim sweep --probes files")
    making.add_argument("--divisor", type=divisor, default=4, help="MIN is the hits divided by this (default 4)")
    reporting = sub.add_parser("report", help="write the Markdown and HTML reports")
    reporting.add_argument("files", nargs="+", help="moqsim sweep --probes files")
    reporting.add_argument("--markdown", required=True)
    reporting.add_argument("--html", required=True)
    args = parser.parse_args()
    try:
        if args.command == "check":
            return check(args.expected, args.files)
        if args.command == "expected":
            # The files by name alone: the list is checked in, and their folder is this machine's.
            command = shlex.join(["python3", "-m", "moqtools.probes", "expected",
                                  *(os.path.basename(path) for path in args.files), "--divisor", str(args.divisor)])
            sys.stdout.write(expected_text(load(args.files), command, args.divisor))
            return 0
        return report(args.files, args.markdown, args.html)
    except ValueError as error:
        print(f"probes: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
