#!/usr/bin/env python3
"""Where one idle-export pass goes, function by function.

Usage:
  idle_profile.py run PROGRAM OUT.json [--polls N] [--tracks T ...] [--case C] [--gates G]
  idle_profile.py table PROFILE.json [PROFILE.json]

`run` runs PROGRAM (bench/idle_export, built with debug information) under callgrind with
per-instruction counts (--dump-instr=yes), for 0 and N polls of each case; the
difference over N is each instruction's cost in one pass. Everything on the idle path is
inlined into the bench's pass, so each instruction is put back in the functions it was
inlined from (addr2line -i): its exclusive count goes to the innermost one, its inclusive
count to every function of its inline chain. OUT.json holds, per case, the pass's total
and each function's counts. A program without debug information is refused (exit 2):
without it every instruction belongs to the pass alone.

`table` prints the markdown table of one profile, or of two (base, then head) side by
side, a column per case and profile. Exit status 0; 1 if a run failed; 2 for bad usage.
"""

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

# A position line of callgrind's format with --dump-instr=yes and uncompressed positions:
# the instruction's address, optionally its source line, then the event count (Ir).
POSITION = re.compile(r"^(0x[0-9a-fA-F]+)(?:\s+\d+)?\s+(\d+)\s*$")
# Below this many instructions per pass a function is left out of the table.
SHOWN_FROM = 0.5


class UsageError(Exception):
    pass


class Parser(argparse.ArgumentParser):
    """Bad arguments are one line (the caller prints it), not argparse's usage text."""

    def error(self, message):
        raise UsageError(message)


def self_costs(lines):
    """{address: instructions} of callgrind output written with --dump-instr=yes
    --compress-pos=no --compress-strings=no: each instruction's own cost. The line after
    a `calls=` line is the call's inclusive cost, charged to the caller's call site in
    the callee's name; it is skipped, so nothing is counted twice."""
    costs = collections.Counter()
    after_calls = False
    for line in lines:
        if line.startswith("calls="):
            after_calls = True
            continue
        match = POSITION.match(line)
        if match is None:
            continue
        if after_calls:
            after_calls = False
            continue
        costs[int(match.group(1), 16)] += int(match.group(2))
    return costs


def per_pass(with_polls, without_polls, polls):
    """The cost of one pass at each address: (I(N) - I(0)) / N, addresses whose counts
    are equal left out."""
    addresses = set(with_polls) | set(without_polls)
    costs = {address: (with_polls.get(address, 0) - without_polls.get(address, 0)) / polls for address in addresses}
    return {address: cost for address, cost in costs.items() if cost != 0}


def short_name(name):
    """A function's name without its arguments, template arguments or the project's
    namespace: `moq::kio::Park::hold(moq::kio::Waker const&)` is `kio::Park::hold`."""
    name = name.replace("(anonymous namespace)::", "")
    out, angle, brace, index = [], 0, 0, 0
    while index < len(name):
        char = name[index]
        if angle == 0 and brace == 0 and "".join(out).endswith("operator"):
            # An operator's symbol (`<`, `->`, `()`) is part of its name, not a bracket.
            end = name.find("(", index + 2 if name.startswith("()", index) else index)
            if end < 0:
                out.append(name[index:])
                break
            out.append(name[index:end])
            index = end
            char = name[index]
        if char == "{":
            brace += 1
        elif char == "}":
            brace -= 1
        elif brace == 0 and char == "<":
            angle += 1
            index += 1
            continue
        elif brace == 0 and char == ">":
            angle -= 1
            index += 1
            continue
        elif angle == 0 and brace == 0 and char == "(":
            break
        if angle == 0:
            out.append(char)
        index += 1
    text = re.sub(r"\[abi:[^\]]*\]", "", "".join(out)).strip()
    # A function template's name may start with its return type.
    return text.rsplit(" ", 1)[-1].removeprefix("moq::")


def parse_chains(text):
    """{address: [function, ...]} from `addr2line -a -i -f -C`: each address line is
    followed by (function, location) pairs, innermost inline frame first."""
    chains = {}
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        if not lines[index].startswith("0x"):
            raise ValueError(f"addr2line output out of step at line {index + 1}: {lines[index]!r}")
        address = int(lines[index], 16)
        index += 1
        chain = []
        while index + 1 < len(lines) and not lines[index].startswith("0x"):
            chain.append(short_name(lines[index]))
            index += 2
        chains[address] = chain
    return chains


def attribute(costs, chains):
    """The pass's total and {function: {"inclusive", "exclusive"}} per pass. A function
    twice in one chain (a recursion inlined) counts once there."""
    functions = collections.defaultdict(lambda: {"inclusive": 0.0, "exclusive": 0.0})
    for address, cost in costs.items():
        chain = chains.get(address) or ["??"]
        functions[chain[0]]["exclusive"] += cost
        for name in dict.fromkeys(chain):
            functions[name]["inclusive"] += cost
    rounded = {name: {key: round(value, 2) for key, value in counts.items()} for name, counts in functions.items()}
    return round(sum(costs.values()), 2), rounded


def has_debug_info(program):
    sections = subprocess.run(["readelf", "-S", "-W", program], capture_output=True, text=True, check=False).stdout
    return ".debug_info" in sections


def callgrind(program, args, work):
    out = os.path.join(work, "callgrind.out")
    if os.path.exists(out):
        os.remove(out)
    command = ["valgrind", "--tool=callgrind", "--dump-instr=yes", "--compress-pos=no", "--compress-strings=no",
               f"--callgrind-out-file={out}", program, *args]
    run = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
    if run.returncode != 0:
        sys.stderr.write(run.stderr[-2000:])
        raise RuntimeError(f"the run {os.path.basename(program)} {' '.join(args)} failed")
    with open(out, encoding="utf-8", errors="replace") as lines:
        return self_costs(lines)


def profile_case(program, which, tracks, gates, polls, work):
    base = ["--case", which, "--tracks", str(tracks), "--gates", gates, "--polls"]
    costs = per_pass(callgrind(program, base + [str(polls)], work), callgrind(program, base + ["0"], work), polls)
    addresses = "\n".join(hex(address) for address in sorted(costs))
    lookup = subprocess.run(["addr2line", "-a", "-i", "-f", "-C", "-e", program], input=addresses,
                            capture_output=True, text=True, check=True)
    total, functions = attribute(costs, parse_chains(lookup.stdout))
    return {"case": which, "tracks": tracks, "gates": gates, "polls": polls, "total": total, "functions": functions}


def column_label(case):
    return f"{case['case']}, {case['tracks']} track{'s' if case['tracks'] != 1 else ''}, gates {case['gates']}"


def table(profiles, names=None):
    """Markdown: a row per function, a column per case and profile; cells are
    inclusive / exclusive instructions per pass."""
    names = names or [None] * len(profiles)
    columns = []
    for case_index in range(max(len(profile["cases"]) for profile in profiles)):
        for profile, name in zip(profiles, names):
            if case_index < len(profile["cases"]):
                case = profile["cases"][case_index]
                columns.append(((f"{name}: " if name else "") + column_label(case), case))
    order = collections.Counter()
    for _, case in columns:
        for function, counts in case["functions"].items():
            order[function] = max(order[function], abs(counts["inclusive"]))
    rows = [function for function, largest in order.most_common() if largest >= SHOWN_FROM]
    lines = ["| function (incl. / excl.) | " + " | ".join(label for label, _ in columns) + " |",
             "| --- |" + " ---: |" * len(columns),
             "| whole pass | " + " | ".join(f"{case['total']:,.1f}" for _, case in columns) + " |"]
    for function in rows:
        cells = []
        for _, case in columns:
            counts = case["functions"].get(function)
            cells.append("—" if counts is None else f"{counts['inclusive']:,.1f} / {counts['exclusive']:,.1f}")
        lines.append(f"| `{function}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def section(profiles, names=None):
    """The lines of a report's section on the table: what it counts, then the table."""
    return [
        "Where an idle pass goes, per function: callgrind's per-instruction counts",
        "(`--dump-instr=yes`) over runs of N and 0 passes, each instruction put back in the",
        "functions it was inlined from (`addr2line -i`, from the build's debug information);",
        "inclusive / exclusive instructions per pass (scripts/moqtools/idle_profile.py):",
        "",
        table(profiles, names),
        "",
    ]


def run(argv):
    parser = Parser(prog="idle_profile.py run")
    parser.add_argument("program")
    parser.add_argument("out")
    parser.add_argument("--polls", type=int, default=20000)
    parser.add_argument("--tracks", type=int, action="append")
    parser.add_argument("--case", default="idle", choices=("idle", "active"))
    parser.add_argument("--gates", default="on", choices=("on", "off"))
    options = parser.parse_args(argv)
    if options.polls < 1:
        raise UsageError(f"--polls takes a positive number, not {options.polls}")
    tracks = options.tracks or [1, 16]
    if any(not 1 <= count <= 4096 for count in tracks):
        raise UsageError("--tracks takes 1 to 4096")
    if not os.access(options.program, os.X_OK):
        raise UsageError(f"cannot run '{options.program}'")
    if not has_debug_info(options.program):
        raise UsageError(f"'{options.program}' has no debug information (configure its build with -Ddebug=true)")
    with tempfile.TemporaryDirectory() as work:
        cases = [profile_case(options.program, options.case, count, options.gates, options.polls, work)
                 for count in tracks]
    folder = os.path.dirname(os.path.abspath(options.out))
    with tempfile.NamedTemporaryFile("w", dir=folder, delete=False, encoding="utf-8") as out:
        json.dump({"program": os.path.basename(options.program), "cases": cases}, out, indent=1)
    os.replace(out.name, options.out)


def load(path):
    try:
        with open(path, encoding="utf-8") as handle:
            profile = json.load(handle)
        if not isinstance(profile.get("cases"), list) or not profile["cases"]:
            raise ValueError("no cases")
        for case in profile["cases"]:
            for key in ("case", "tracks", "gates", "total", "functions"):
                if key not in case:
                    raise ValueError(f"a case without {key}")
        return profile
    except (OSError, ValueError, AttributeError) as error:
        raise UsageError(f"cannot read the profile {path}: {error}") from error


def main(argv):
    try:
        if len(argv) >= 1 and argv[0] == "run":
            run(argv[1:])
        elif len(argv) in (2, 3) and argv[0] == "table":
            profiles = [load(path) for path in argv[1:]]
            print(table(profiles, ["base", "head"] if len(profiles) == 2 else None))
        else:
            raise UsageError("usage: idle_profile.py run PROGRAM OUT.json [...] | table PROFILE.json [PROFILE.json]")
    except UsageError as error:
        print(f"idle_profile: {error}", file=sys.stderr)
        return 2
    except (RuntimeError, subprocess.CalledProcessError) as error:
        print(f"idle_profile: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
