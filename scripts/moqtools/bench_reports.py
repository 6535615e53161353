"""The reports of one revision's benchmarks (scripts/bench): the idle-export table and
the simulator's throughput, from the raw figures scripts/bench measured, and the run
facts of a paired run (scripts/bench --base) that bench_pair.py reads.

  python3 -m moqtools.bench_reports per-poll BASE TOTAL POLLS
  python3 -m moqtools.bench_reports idle RESULTS REPORTS COMMIT COMPILER TOOL IDLE_POLLS ACTIVE_POLLS PROFILE
  python3 -m moqtools.bench_reports sim RESULTS REPORTS COMMIT COMPILER TOOL CPU SCENARIO
  python3 -m moqtools.bench_reports meta PATH BASE_REV BASE_SHA HEAD_REV HEAD_SHA DIRTY ROUNDS REPETITIONS
                                         IDLE_POLLS ACTIVE_POLLS COMPILER TOOL LOAD_BEFORE LOAD_AFTER

Reports are written whole (reports.write_reports): a failed run leaves the last ones.
"""

import json
import os
import statistics
import sys

from .bench_targets import target_lines
from .idle_profile import section as profile_section
from .reports import write_reports


def per_poll_text(base, total, polls):
    """Instructions per poll of (I(N) - I(0)) / N, as the progress lines show it."""
    return f"{(int(total) - int(base)) / int(polls):,.1f}"


def write_meta(path, base_rev, base_sha, head_rev, head_sha, dirty, rounds, repetitions, idle_polls, active_polls,
               compiler, tool, before, after):
    """The facts of a paired run, for bench_pair.py's report."""
    meta = {"base": {"rev": base_rev, "sha": base_sha}, "head": {"rev": head_rev, "sha": head_sha, "dirty": dirty == "true"},
            "rounds": int(rounds), "repetitions": int(repetitions), "idle_polls": int(idle_polls),
            "active_polls": int(active_polls), "compiler": compiler, "tool": tool, "load": [before, after]}
    with open(path, "w", encoding="utf-8") as out:
        json.dump(meta, out)


def idle_rows(results):
    """One row a line "CASE TRACKS GATES POLLS I(0) I(N)" of RESULTS."""
    rows = []
    with open(results, encoding="utf-8") as lines:
        for line in lines:
            which, tracks, gates, polls, base, total = line.split()
            rows.append({
                "case": which,
                "tracks": int(tracks),
                "gates": gates,
                "instructions_per_poll": round((int(total) - int(base)) / int(polls), 1),
            })
    return rows


def idle_markdown(rows, commit, compiler, tool, idle_polls, active_polls):
    """The report's markdown, its table and its targets' lines."""
    per_poll = {(r["case"], r["tracks"], r["gates"]): r["instructions_per_poll"] for r in rows}
    table = [
        "| case | tracks | gates off | gates on | ratio off/on | on per track |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for which in ("idle", "active"):
        for tracks in (1, 4, 16):
            off, on = per_poll[(which, tracks, "off")], per_poll[(which, tracks, "on")]
            ratio = f"{off / on:.1f}x" if on > 0 else "n/a"
            table.append(f"| {which} | {tracks} | {off:,.1f} | {on:,.1f} | {ratio} | {on / tracks:,.1f} |")

    # Issue 13's targets, judged from the figures above. A run of one revision has no base to
    # judge the active path against; scripts/bench --base judges it.
    targets = target_lines(per_poll)

    markdown = "\n".join([
        "# Idle-export benchmark",
        "",
        "Instructions per poll, where one poll is one pass of the export task over all its",
        "tracks: idle passes find nothing new (every poll answers Pending); each active round",
        "writes one frame to every track, then drains every track. Measured by `scripts/bench`",
        "with valgrind's callgrind (Ir) as (I(N) - I(0)) / N over identical runs of",
        "`bench/idle_export` with 0 and N polls; gates on and off come from the same build",
        "(`moq::model::set_gates_enabled`).",
        "",
        f"- N: {int(idle_polls):,} idle passes, {int(active_polls):,} active rounds",
        f"- Build: `build-bench/` (release, with debug information), {compiler}; {tool}",
        f"- Commit: {commit}",
        "",
        *table,
        "",
        "Targets (issue 13):",
        "",
        *targets,
        "",
    ])
    return markdown, table, targets


def idle_report(results, reports, commit, compiler, tool, idle_polls, active_polls, profile_path):
    rows = idle_rows(results)
    markdown, table, targets = idle_markdown(rows, commit, compiler, tool, idle_polls, active_polls)
    profile_json = []
    per_function = []
    if os.path.exists(profile_path):
        with open(profile_path, encoding="utf-8") as handle:
            profile = json.load(handle)
        per_function = profile_section([profile])
        markdown += "\n" + "\n".join(per_function)
        profile_json = [("bench-profile.json", json.dumps(profile, indent=1) + "\n")]
    write_reports(reports, [("bench.md", markdown), ("bench.json", json.dumps(rows, indent=2) + "\n"), *profile_json])

    print()
    print("\n".join(table))
    print()
    print("\n".join(targets))
    print()
    if per_function:
        print("\n".join(per_function))
    print("bench: wrote reports/bench.md and reports/bench.json" + (" and reports/bench-profile.json" if per_function else ""))


def median_rate(runs, count):
    return statistics.median(run[count] / run["seconds"] for run in runs)


def added(ir, case):
    # What N rounds added over 0 rounds: instructions, and the program's counts. The
    # process, the set-up and (switch case) the executor's construction cancel.
    (base, zero), (total, full) = sorted(ir[case], key=lambda pair: pair[1]["rounds"])
    counts = {key: full[key] - zero[key] for key in ("rounds", "switches", "polls")}
    return total - base, counts



def sim_runs(results):
    """The wall-clock runs and the callgrind runs of RESULTS, by case."""
    wall = {"switch": [], "scenario": []}
    ir = {"switch": [], "scenario": []}
    with open(results, encoding="utf-8") as lines:
        for line in lines:
            kind, case, rest = line.split(maxsplit=2)
            if kind == "wall":
                wall[case].append(json.loads(rest))
            else:
                total, run = rest.split(maxsplit=1)
                ir[case].append((int(total), json.loads(run)))
    return wall, ir


def sim_rows(wall, ir, scenario):
    switch_ir, switch_added = added(ir, "switch")
    scenario_ir, scenario_added = added(ir, "scenario")
    scenario_runs = wall["scenario"][0]
    rows = [
        {
            "case": "switch",
            "rounds": wall["switch"][0]["rounds"],
            "switches": wall["switch"][0]["switches"],
            "switches_per_second": round(median_rate(wall["switch"], "switches")),
            "callgrind_rounds": switch_added["rounds"],
            "instructions_per_switch": round(switch_ir / switch_added["switches"], 1),
        },
        {
            "case": "scenario",
            "scenario": scenario,
            "rounds": scenario_runs["rounds"],
            "switches": scenario_runs["switches"],
            "polls": scenario_runs["polls"],
            "runs_per_second": round(median_rate(wall["scenario"], "rounds")),
            "polls_per_second": round(median_rate(wall["scenario"], "polls")),
            "switches_per_second": round(median_rate(wall["scenario"], "switches")),
            "callgrind_rounds": scenario_added["rounds"],
            "instructions_per_poll": round(scenario_ir / scenario_added["polls"], 1),
            "instructions_per_switch": round(scenario_ir / scenario_added["switches"], 1),
            "instructions_per_run": round(scenario_ir / scenario_added["rounds"], 1),
        },
    ]
    return rows, switch_added, scenario_added


def sim_table(rows, scenario):
    switch_row, scenario_row = rows
    table = [
        "| case | rounds | runs/s | switches/s | polls/s | instructions per switch | instructions per poll |",
        "|---|---:|---:|---:|---:|---:|---:|",
        f"| switch | {switch_row['rounds']:,} | - | {switch_row['switches_per_second']:,} | - "
        f"| {switch_row['instructions_per_switch']:,.1f} | - |",
        f"| scenario {scenario} | {scenario_row['rounds']:,} | {scenario_row['runs_per_second']:,} "
        f"| {scenario_row['switches_per_second']:,} | {scenario_row['polls_per_second']:,} "
        f"| {scenario_row['instructions_per_switch']:,.1f} | {scenario_row['instructions_per_poll']:,.1f} |",
    ]
    return table


def sim_markdown(wall, rows, table, added_counts, facts):
    switch_row, scenario_row = rows
    switch_added, scenario_added = added_counts
    commit, compiler, tool, cpu, scenario = facts
    seconds = {case: ", ".join(f"{run['seconds']:.4f}" for run in runs) for case, runs in wall.items()}
    markdown = "\n".join([
        "# Simulator throughput",
        "",
        "How fast the deterministic executor runs, measured by `scripts/bench --sim` with",
        "`bench/sim_throughput`:",
        "",
        "- switch: one executor (FIFO, schedule points off) and two tasks that each yield N",
        "  times, so a switch is one resume of a task fiber and its return to the scheduler,",
        "  with the executor's bookkeeping (step, pick, trace digest) around it.",
        f"- scenario {scenario}: the scenario for seeds 1..N with the default options (random",
        "  strategy); a run is one seed, from the executor's construction to its result.",
        "",
        "Rates are wall-clock (the program's steady_clock around its measured loop), the",
        "median of three plain runs; they depend on the machine and its load. Instructions",
        "are callgrind's Ir over runs of 0 and N rounds: (I(N) - I(0)) divided by the switches",
        "or polls the N rounds added, so per poll in the scenario row is a whole run's cost",
        "(executor, fibers, the core's work) spread over its simulated polls.",
        "",
        f"- N (plain runs): {switch_row['rounds']:,} yields per task, {scenario_row['rounds']:,} seeds; "
        f"(callgrind): {switch_added['rounds']:,} yields per task, {scenario_added['rounds']:,} seeds",
        f"- Counts per plain run: {switch_row['switches']:,} switches; {scenario_row['switches']:,} switches "
        f"and {scenario_row['polls']:,} polls over {scenario_row['rounds']:,} runs",
        f"- Seconds of the three plain runs: switch {seconds['switch']}; scenario {seconds['scenario']}",
        f"- Instructions per {scenario} run: {scenario_row['instructions_per_run']:,.1f}",
        f"- Machine: {cpu}",
        f"- Build: `build-bench/` (release, with debug information), {compiler}; {tool}",
        f"- Commit: {commit}",
        "",
        *table,
        "",
    ])
    return markdown


def sim_report(results, reports, commit, compiler, tool, cpu, scenario):
    wall, ir = sim_runs(results)
    rows, switch_added, scenario_added = sim_rows(wall, ir, scenario)
    table = sim_table(rows, scenario)
    markdown = sim_markdown(wall, rows, table, (switch_added, scenario_added), (commit, compiler, tool, cpu, scenario))
    write_reports(reports, [("sim.md", markdown), ("sim.json", json.dumps(rows, indent=2) + "\n")])

    print()
    print("\n".join(table))
    print()
    print("bench: wrote reports/sim.md and reports/sim.json")


COMMANDS = {"per-poll": (3, lambda *a: print(per_poll_text(*a))), "meta": (14, write_meta),
            "idle": (8, idle_report), "sim": (7, sim_report)}


def main(argv):
    command = COMMANDS.get(argv[1]) if len(argv) > 1 else None
    if command is None or len(argv) - 2 != command[0]:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    command[1](*argv[2:])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
