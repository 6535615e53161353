#!/usr/bin/env python3
"""The speed of sweeps and small-scope explorations, of one moqsim or of two side by side.

Usage: python3 -m moqtools.sweep_pair HEAD_MOQSIM [--base BASE_MOQSIM] [--seeds 7] [--cases 3000]
           [--rounds 3] [--explore gate,group,resume] [--ops 2] [--bound 1] [--label-base REV]
           [--label-head REV] --json OUT --markdown OUT

For every suite HEAD_MOQSIM lists (and BASE_MOQSIM has), a sweep of --cases cases of seed
--seeds (`sweep --recheck 0 --json`), and for each --explore suite an exploration of every
small case of up to --ops operations within --bound (`explore --json`). With --base, each run
is made of both, base then head in odd rounds and head then base in even ones, so a load that
comes and goes falls on both alike. The figure of each is the median over --rounds rounds
(explorations: one round, they are long). Writes cases/s and schedules/s, head / base, whether
the sweeps' cases digests and the explorations' schedule counts agree, the date, the load
before and after, and the two labels. Exit 2 on bad input, 1 when a run fails.
"""

import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile


class UsageError(Exception):
    pass


def load():
    try:
        with open("/proc/loadavg", encoding="utf-8") as file:
            return float(file.read().split()[0])
    except OSError:
        return None


def run_json(command):
    """The JSON a moqsim command wrote to its --json file (sweep) or standard output (explore)."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "out.json")
        if command[1] == "sweep":
            command = command + ["--json", path]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} exited {done.returncode}: {done.stderr.strip()[-500:]}")
        if command[1] == "sweep":
            with open(path, encoding="utf-8") as file:
                return json.load(file)
        return json.loads(done.stdout)


def suites_of(moqsim):
    done = subprocess.run([moqsim, "list", "--suites"], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise UsageError(f"{moqsim} list --suites failed: {done.stderr.strip()}")
    return done.stdout.split()


def sweep(moqsim, suite, args):
    result = run_json([moqsim, "sweep", "--suite", suite, "--seeds", args.seeds, "--cases", str(args.cases),
                       "--recheck", "0"])
    entry = result["suites"][0]
    return {"cases_per_second": entry["cases_per_second"], "cases_digest": entry.get("cases_digest"),
            "cases": entry["run"]}


def explore(moqsim, suite, args):
    result = run_json([moqsim, "explore", "--suite", suite, "--ops", str(args.ops), "--bound", str(args.bound),
                       "--json"])
    return {"schedules": result["schedules"], "schedules_per_second": result["schedules_per_second"],
            "exhaustive": result["exhaustive"]}


def paired(measure, binaries, rounds):
    """{label: [figures of each round]}, base then head in odd rounds and head then base in even ones."""
    figures = {label: [] for label in binaries}
    labels = list(binaries)
    for number in range(rounds):
        for label in labels if number % 2 == 0 else list(reversed(labels)):
            figures[label].append(measure(binaries[label]))
    return figures


def median_of(rounds, key):
    return statistics.median(round_[key] for round_ in rounds)


def measure(args):
    binaries = {"base": args.base, "head": args.head} if args.base else {"head": args.head}
    suites = suites_of(args.head)
    if args.base:
        known = set(suites_of(args.base))
        suites = [suite for suite in suites if suite in known]
    report = {"date": datetime.datetime.now().isoformat(timespec="seconds"), "load_before": load(),
              "labels": {"base": args.label_base, "head": args.label_head}, "seeds": args.seeds,
              "cases": args.cases, "rounds": args.rounds, "ops": args.ops, "bound": args.bound,
              "sweeps": [], "explorations": []}
    for suite in suites:
        figures = paired(lambda moqsim: sweep(moqsim, suite, args), binaries, args.rounds)
        row = {"suite": suite}
        for label, rounds in figures.items():
            row[label] = {"cases_per_second": median_of(rounds, "cases_per_second"),
                          "cases_digest": rounds[0]["cases_digest"], "cases": rounds[0]["cases"]}
        report["sweeps"].append(row)
        print(f"sweep {suite}: " + ", ".join(f"{label} {row[label]['cases_per_second']:.0f} cases/s"
                                             for label in binaries), file=sys.stderr, flush=True)
    for suite in [suite for suite in args.explore.split(",") if suite in suites]:
        figures = paired(lambda moqsim: explore(moqsim, suite, args), binaries, 1)
        row = {"suite": suite}
        for label, rounds in figures.items():
            row[label] = rounds[0]
        report["explorations"].append(row)
        print(f"explore {suite}: " + ", ".join(f"{label} {row[label]['schedules']} schedules, "
                                               f"{row[label]['schedules_per_second']:.0f}/s" for label in binaries),
              file=sys.stderr, flush=True)
    report["load_after"] = load()
    return report


def ratio(row, key):
    if "base" not in row or not row["base"][key]:
        return "-"
    return f"{row['head'][key] / row['base'][key]:.3f}"


def markdown(report):
    paired_run = any("base" in row for row in report["sweeps"])
    labels = report["labels"]
    lines = [f"Measured {report['date']}, load {report['load_before']} before and {report['load_after']} after; "
             f"head {labels['head'] or 'this tree'}" + (f", base {labels['base']}" if paired_run else "") + ".", "",
             f"Sweeps: seed {report['seeds']}, {report['cases']} cases each, the median of {report['rounds']} rounds.",
             ""]
    if paired_run:
        lines += ["| suite | base cases/s | head cases/s | head / base | cases digests |",
                  "| --- | ---: | ---: | ---: | --- |"]
        for row in report["sweeps"]:
            same = "same" if row["base"]["cases_digest"] == row["head"]["cases_digest"] else "differ"
            lines.append(f"| {row['suite']} | {row['base']['cases_per_second']:,.0f} | "
                         f"{row['head']['cases_per_second']:,.0f} | {ratio(row, 'cases_per_second')} | {same} |")
    else:
        lines += ["| suite | cases/s |", "| --- | ---: |"]
        lines += [f"| {row['suite']} | {row['head']['cases_per_second']:,.0f} |" for row in report["sweeps"]]
    if report["explorations"]:
        lines += ["", f"Small scopes: every small case of up to {report['ops']} operations, bound {report['bound']}.",
                  ""]
        if paired_run:
            lines += ["| suite | base schedules | head schedules | base schedules/s | head schedules/s | head / base |",
                      "| --- | ---: | ---: | ---: | ---: | ---: |"]
            for row in report["explorations"]:
                lines.append(f"| {row['suite']} | {row['base']['schedules']:,} | {row['head']['schedules']:,} | "
                             f"{row['base']['schedules_per_second']:,.0f} | "
                             f"{row['head']['schedules_per_second']:,.0f} | {ratio(row, 'schedules_per_second')} |")
        else:
            lines += ["| suite | schedules | schedules/s |", "| --- | ---: | ---: |"]
            lines += [f"| {row['suite']} | {row['head']['schedules']:,} | {row['head']['schedules_per_second']:,.0f} |"
                      for row in report["explorations"]]
    return "\n".join(lines) + "\n"


def write_atomically(path, text):
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=folder, delete=False, encoding="utf-8") as out:
        out.write(text)
    os.replace(out.name, path)


def parse(argv):
    parser = argparse.ArgumentParser(prog="sweep_pair", add_help=True)
    parser.add_argument("head")
    parser.add_argument("--base")
    parser.add_argument("--seeds", default="7")
    parser.add_argument("--cases", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--explore", default="gate,group,resume")
    parser.add_argument("--ops", type=int, default=2)
    parser.add_argument("--bound", type=int, default=1)
    parser.add_argument("--label-base", default="")
    parser.add_argument("--label-head", default="")
    parser.add_argument("--json", required=True)
    parser.add_argument("--markdown", required=True)
    args = parser.parse_args(argv)
    for binary in [args.head] + ([args.base] if args.base else []):
        if not os.access(binary, os.X_OK):
            raise UsageError(f"no moqsim at {binary}")
    if args.cases < 1 or args.rounds < 1:
        raise UsageError("--cases and --rounds take a number from 1")
    return args


def main(argv):
    try:
        args = parse(argv)
        report = measure(args)
    except UsageError as error:
        print(f"sweep_pair: {error}", file=sys.stderr)
        return 2
    except RuntimeError as error:
        print(f"sweep_pair: {error}", file=sys.stderr)
        return 1
    write_atomically(args.json, json.dumps(report, indent=1) + "\n")
    text = markdown(report)
    write_atomically(args.markdown, text)
    print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
