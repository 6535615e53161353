#!/usr/bin/env python3
"""Site coverage: which suite's sweep reaches which mutation site, and how often.

Usage: python3 -m moqtools.site_coverage SITE_HITS_JSON REPORT_DIR [--mutation MUTATION_JSON]

SITE_HITS_JSON is what `moqsim sweep --site-hits FILE` writes in a mutants build (how
often each suite's sweep evaluated each site). Writes REPORT_DIR/sites.json (that file,
checked) and REPORT_DIR/sites.md: a table of sites by suites, each suite's reach, and
the sites no sweep reaches (with their mutation verdict, from MUTATION_JSON if given).
report_html.py shows the same table below the mutation report. Bad input: one line on
stderr, exit 2, nothing written.
"""

import argparse
import html
import json
import os
import sys

from .reports import write_reports


def check_site_hits(hits):
    """Raises ValueError unless hits has the shape moqsim writes."""
    if not isinstance(hits, dict) or hits.get("format") != "moqsim-site-hits":
        raise ValueError("not a moqsim site-hits file (format moqsim-site-hits)")
    if hits.get("version") != 1:
        raise ValueError(f"unknown site-hits version {hits.get('version')!r} (this reads version 1)")
    sites = hits.get("sites")
    suites = hits.get("suites")
    if not isinstance(sites, list) or not isinstance(suites, list):
        raise ValueError("a site-hits file needs the lists 'sites' and 'suites'")
    names = set()
    for site in sites:
        if not isinstance(site, dict) or not all(key in site for key in ("name", "category", "file", "line")):
            raise ValueError("every site needs name, category, file and line")
        names.add(site["name"])
    for suite in suites:
        counts = suite.get("evaluations") if isinstance(suite, dict) else None
        if not isinstance(counts, dict) or "suite" not in suite:
            raise ValueError("every suite needs its name and its 'evaluations'")
        if set(counts) != names or not all(isinstance(n, int) and n >= 0 for n in counts.values()):
            raise ValueError(f"suite {suite['suite']}: 'evaluations' must count every site once")


def suite_names(hits):
    return [suite["suite"] for suite in hits["suites"]]


def count(hits, suite_index, name):
    return hits["suites"][suite_index]["evaluations"][name]


def unreached(hits):
    """The sites no suite's sweep evaluated, in the order of hits["sites"]."""
    return [site for site in hits["sites"]
            if all(count(hits, i, site["name"]) == 0 for i in range(len(hits["suites"])))]


def reach(hits, suite_index):
    return sum(1 for site in hits["sites"] if count(hits, suite_index, site["name"]) > 0)


def verdicts(mutation_report):
    """{site name: mutant status} from a mutation-testing report (mutant id = site name)."""
    found = {}
    for entry in (mutation_report or {}).get("files", {}).values():
        for mutant in entry.get("mutants", []):
            found[mutant.get("id")] = mutant.get("status", "")
    return found


def describe_sweep(hits):
    seeds = hits.get("seeds", [])
    seed_text = f"seed {seeds[0]}" if len(seeds) == 2 and seeds[0] == seeds[1] else \
        f"seeds {seeds[0]}-{seeds[1]}" if len(seeds) == 2 else "its seeds"
    cases = sorted({suite.get("cases") for suite in hits["suites"]})
    case_text = f"{cases[0]:,} cases a suite" if len(cases) == 1 and cases[0] is not None else "each suite's cases"
    return f"{seed_text}, {case_text}, strategy {hits.get('strategy', 'random')}"


def stopped_early(hits):
    """Suites whose sweep stopped before its last case (a failure ends a sweep)."""
    seeds = hits.get("seeds") or [1, 1]
    seed_count = seeds[-1] - seeds[0] + 1
    return [suite["suite"] for suite in hits["suites"]
            if isinstance(suite.get("run"), int) and isinstance(suite.get("cases"), int)
            and suite["run"] < suite["cases"] * seed_count]


def sites_markdown(hits, mutation_report=None):
    names = suite_names(hits)
    status = verdicts(mutation_report)
    lines = ["# Site coverage", "",
             f"How often each suite's sweep evaluated each mutation site ({describe_sweep(hits)}; "
             "counted in the mutants build). `0`: that sweep never reaches the site, so it cannot "
             "kill it there.", "",
             "| site | category | where | " + " | ".join(names) + " | verdict |",
             "| --- | --- | --- | " + " | ".join("---:" for _ in names) + " | --- |"]
    for site in hits["sites"]:
        cells = " | ".join(f"{count(hits, i, site['name']):,}" for i in range(len(names)))
        lines.append(f"| `{site['name']}` | {site['category']} | {site['file']}:{site['line']} | {cells} "
                     f"| {status.get(site['name'], '-').lower() or '-'} |")
    lines += ["", "## Reach", ""]
    lines += [f"- {name} reaches {reach(hits, i)} of {len(hits['sites'])} sites" for i, name in enumerate(names)]
    early = stopped_early(hits)
    if early:
        lines += ["", "Stopped at a failure before their last case (counts cover the cases run): "
                  + ", ".join(early) + "."]
    lines += ["", "## Sites no sweep reaches", ""]
    missing = unreached(hits)
    if missing:
        lines += [f"- `{site['name']}` ({site['file']}:{site['line']}), mutation verdict: "
                  f"{status.get(site['name'], 'not in the mutation report').lower()}" for site in missing]
    else:
        lines.append("Every site is reached by at least one suite's sweep.")
    return "\n".join(lines) + "\n"


def sites_html(hits, mutation_report=None):
    """The same table as an HTML section (id "sites"), for the mutation report's page."""
    names = suite_names(hits)
    status = verdicts(mutation_report)
    escape = html.escape
    rows = []
    for site in hits["sites"]:
        counts = [count(hits, i, site["name"]) for i in range(len(names))]
        cells = "".join(f'<td class="{"zero" if n == 0 else "some"}">{n:,}</td>' for n in counts)
        row_class = ' class="unreached"' if not any(counts) else ""
        rows.append(f'<tr{row_class}><td><code>{escape(site["name"])}</code></td><td class="text">{escape(site["category"])}</td>'
                    f'<td class="text">{escape(site["file"])}:{site["line"]}</td>{cells}'
                    f'<td class="text">{escape(status.get(site["name"], "-"))}</td></tr>')
    missing = unreached(hits)
    if missing:
        unreached_html = "<ul>" + "".join(
            f'<li><code>{escape(site["name"])}</code> ({escape(site["file"])}:{site["line"]})</li>'
            for site in missing) + "</ul>"
    else:
        unreached_html = "<p>Every site is reached by at least one suite's sweep.</p>"
    reach_html = "<ul>" + "".join(f"<li>{escape(name)} reaches {reach(hits, i)} of {len(hits['sites'])} sites</li>"
                                  for i, name in enumerate(names)) + "</ul>"
    return (f'<section id="sites">\n<h2>Site coverage</h2>\n'
            f"<p>How often each suite's sweep evaluated each mutation site ({escape(describe_sweep(hits))}). "
            f"A grey 0: that sweep never reaches the site; a red row: no sweep does.</p>\n"
            f'<table>\n<thead><tr><th>site</th><th class="text">category</th><th class="text">where</th>'
            + "".join(f"<th>{escape(name)}</th>" for name in names)
            + "<th>verdict</th></tr></thead>\n<tbody>\n" + "\n".join(rows) + "\n</tbody>\n</table>\n"
            + f"<h3>Reach</h3>\n{reach_html}\n<h3>Sites no sweep reaches</h3>\n{unreached_html}\n</section>\n")


def load_json(path, what):
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except OSError as error:
        raise ValueError(f"cannot read the {what} {path}: {error.strerror}") from error
    except json.JSONDecodeError as error:
        raise ValueError(f"the {what} {path} is not JSON ({error})") from error


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site_hits")
    parser.add_argument("report_dir")
    parser.add_argument("--mutation", help="the mutation report, for each site's verdict")
    args = parser.parse_args()
    try:
        hits = load_json(args.site_hits, "site hits")
        try:
            check_site_hits(hits)
        except ValueError as error:
            raise ValueError(f"{args.site_hits}: {error}") from error
        mutation = None
        if args.mutation and os.path.exists(args.mutation):
            mutation = load_json(args.mutation, "mutation report")
    except ValueError as error:
        print(f"sites: {error}", file=sys.stderr)
        sys.exit(2)
    write_reports(args.report_dir, [("sites.json", json.dumps(hits, indent=1) + "\n"),
                                    ("sites.md", sites_markdown(hits, mutation))])
    missing = unreached(hits)
    print(f"sites: {len(hits['sites']) - len(missing)} of {len(hits['sites'])} sites reached by a sweep; "
          f"reports in {os.path.relpath(args.report_dir)}/sites.md")
    for site in missing:
        print(f"sites: no sweep reaches {site['name']} ({site['file']}:{site['line']})")


if __name__ == "__main__":
    main()
