"""The reports of a soak (scripts/moqtools/soak.py): each bucket's smallest case kept with its
timeline, and soak.json, soak.md and soak.html.

report(result, folder, moqsim) writes them into `folder`: the buckets' smallest cases in
folder/soak-cases/ID.json (the corpus layout, so one can be copied into corpus/) with
their timelines beside them (`moqsim replay FILE --timeline`), the cases run per suite,
strategy and mix, and every bucket with its replay command and a link to its timeline.
"""

import html
import json
import subprocess

from .reports import html_page, write_reports

STRATEGIES = ["fifo", "random", "pct", "pos", "surw"]
MIXES = ["fixed", "swarm"]


class TimelineError(Exception):
    """moqsim refused to draw a timeline (bad input): its one-line message."""


CASE_FIELDS = ("format", "version", "suite", "mutant", "found_by", "bound", "message", "digest", "case")


def case_text(saved):
    """A saved case as moqsim writes one (runner/replay_file.cpp): a top-level field a line,
    each compact, then the decisions a few a line."""
    fields = [f" {json.dumps(key)}: {json.dumps(saved[key], separators=(',', ':'), sort_keys=True)},\n"
              for key in CASE_FIELDS if key in saved]
    lines, line = [], ""
    decisions = saved.get("decisions", [])
    for index, decision in enumerate(decisions):
        item = json.dumps(decision) + ("," if index + 1 < len(decisions) else "")
        if line and len(line) + 1 + len(item) > 96:
            lines.append(line)
            line = ""
        line = f"{line} {item}" if line else item
    if line:
        lines.append(line)
    body = "".join("\n  " + text for text in lines) + "\n " if lines else ""
    return "{\n" + "".join(fields) + ' "decisions": [' + body + "]\n}\n"


def keep_cases(result, folder, moqsim):
    """Each bucket's smallest case in folder/soak-cases/ID.json and its timeline beside it
    (an earlier soak's others removed); the bucket's replay command then runs that file."""
    cases = folder / "soak-cases"
    ids = {bucket["id"] for bucket in result["buckets"]}
    for old in cases.glob("*") if cases.is_dir() else []:
        if old.suffix in (".json", ".html") and old.stem not in ids:
            old.unlink()
    for bucket in result["buckets"]:
        smallest = bucket["smallest"]
        name = f"{bucket['id']}.json"
        write_reports(str(cases), [(name, case_text(smallest["saved"]))])
        mutant = f" --mutant {result['mutant']}" if result["mutant"] else ""
        smallest["file"] = str(cases / name)
        smallest["replay"] = f"{moqsim} replay {cases / name}{mutant}"
        page = cases / f"{bucket['id']}.html"
        command = [moqsim, "replay", str(cases / name), "--timeline", str(page)]
        drawn = subprocess.run(command + (["--mutant", result["mutant"]] if result["mutant"] else []),
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
        if drawn.returncode == 2:
            raise TimelineError(f"{' '.join(command)}: {drawn.stderr.strip()}")
        smallest["timeline"] = str(page) if page.exists() else None


def cases_table(result):
    """Rows of [suite, cases of each strategy and mix..., all] and the heading."""
    heading = ["suite"] + [f"{strategy} {mix}" for strategy in STRATEGIES for mix in MIXES] + ["all"]
    by = {(c["suite"], c["strategy"], c["mix"]): c["cases"] for c in result["combinations"]}
    suites = list(dict.fromkeys(c["suite"] for c in result["combinations"]))
    rows = []
    for suite in suites + ["all"]:
        counts = [sum(n for (s, x, m), n in by.items() if (suite in ("all", s)) and x == strategy and m == mix)
                  for strategy in STRATEGIES for mix in MIXES]
        rows.append([suite] + [f"{n:,}" for n in counts] + [f"{sum(counts):,}"])
    return heading, rows


def summary_line(result):
    cases = sum(c["cases"] for c in result["combinations"])
    shards = result["shard"]["total"]
    return (f"{result['duration_seconds']} s soak ({result['seconds']:.0f} s of wall time"
            f"{f', {shards} shards' if shards > 1 else ''}): {cases:,} cases, seeds from {result['seeds']['first']}"
            f" (the next soak starts at {result['seeds']['next']}), mutant {result['mutant'] or 'none'}, "
            f"{len(result['buckets'])} buckets")


def failures(count):
    return f"{count:,} failure" + ("" if count == 1 else "s")


def bucket_facts(bucket):
    """(label, text) pairs of a bucket, for both the Markdown and the HTML report."""
    first, smallest = bucket["first"], bucket["smallest"]
    shrunk = "shrunk" if smallest["complete"] else "its shrink ran out of time"
    return [("signature", " ".join(bucket["signature"]) or "(no operation)"),
            ("seen under", "strategies " + ", ".join(bucket["strategies"]) + "; mixes " + ", ".join(bucket["mixes"])),
            ("first", f"seed {first['seed']} case {first['case']}: {first['message']}"),
            ("first replay", first["replay"]),
            ("smallest", f"seed {smallest['seed']} case {smallest['case']}, {smallest['steps']} steps ({shrunk})"),
            ("replay", smallest["replay"])]


def markdown(result):
    heading, rows = cases_table(result)
    lines = ["# Soak", "", summary_line(result), "", "## Cases per suite, strategy and mix", "",
             "| " + " | ".join(heading) + " |", "|" + " --- |" * len(heading)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    lines += ["", "## Buckets", ""]
    if not result["buckets"]:
        lines.append("No bucket: every case passed.")
    for bucket in result["buckets"]:
        lines += [f"### {bucket['id']}: {bucket['rule']} {bucket['check']}, {bucket['suite']}: "
                  f"{failures(bucket['count'])}", ""]
        lines += [f"- {label}: `{text}`" if label.endswith("replay") else f"- {label}: {text}"
                  for label, text in bucket_facts(bucket)]
        if bucket["smallest"].get("timeline"):
            lines.append(f"- timeline: soak-cases/{bucket['id']}.html")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


STYLE = """table { border-collapse: collapse; }
td, th { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: right; }
td:first-child, th:first-child { text-align: left; }
.bucket { border-left: 4px solid #c33; padding-left: 1em; margin: 1.5em 0; }
code { background: #f4f4f4; padding: 0 0.2em; word-break: break-all; }
"""


def soak_page(result):
    escape = html.escape
    heading, rows = cases_table(result)
    table = ("<table>\n<tr>" + "".join(f"<th>{escape(cell)}</th>" for cell in heading) + "</tr>\n" +
             "".join("<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in row) + "</tr>\n" for row in rows) +
             "</table>")
    sections = []
    for bucket in result["buckets"]:
        facts = "".join(f"<li>{escape(label)}: " + (f"<code>{escape(text)}</code>" if label.endswith("replay")
                                                     else escape(text)) + "</li>\n"
                        for label, text in bucket_facts(bucket))
        if bucket["smallest"].get("timeline"):
            target = escape(f"soak-cases/{bucket['id']}.html")
            facts += f'<li>timeline of the smallest case: <a href="{target}">{target}</a></li>\n'
        sections.append(f'<section class="bucket" id="{escape(bucket["id"])}">\n<h3>{escape(bucket["id"])}: '
                        f'{escape(bucket["rule"])} {escape(bucket["check"])}, {escape(bucket["suite"])}: '
                        f'{failures(bucket["count"])}</h3>\n<ul>\n{facts}</ul>\n</section>')
    buckets = "\n".join(sections) or "<p>No bucket: every case passed.</p>"
    body = (f'<p class="summary">{escape(summary_line(result))}</p>\n<h2>Cases per suite, strategy and mix</h2>\n'
            f"{table}\n<h2>Buckets</h2>\n{buckets}")
    return html_page("moqsim soak", body, STYLE, width="70em")


def report(result, folder, moqsim):
    keep_cases(result, folder, moqsim)
    write_reports(str(folder), [("soak.json", json.dumps(result, indent=1) + "\n"), ("soak.md", markdown(result)),
                                ("soak.html", soak_page(result))])
    print(summary_line(result))
    for bucket in result["buckets"]:
        print(f"  {bucket['id']}  {bucket['rule']} {bucket['check']}, {bucket['suite']}: {bucket['count']} failed"
              f"\n    replay: {bucket['smallest']['replay']}")
    print(f"soak: {folder / 'soak.md'}, soak.json and soak.html written")
