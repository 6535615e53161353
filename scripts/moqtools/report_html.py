#!/usr/bin/env python3
"""The mutation report as one self-contained HTML page.

Usage: python3 -m moqtools.report_html REPORT_JSON COMPONENT_JS OUT_HTML [--sites SITES_JSON]

REPORT_JSON is a mutation-testing report (schema version 2, as scripts/moqtools/mutation.py
writes it); COMPONENT_JS is the standard viewer's browser bundle (npm's
mutation-testing-elements, dist/mutation-test-elements.js), which defines the
<mutation-test-report-app> element. The page holds both inline, and the site coverage
table when SITES_JSON (scripts/moqtools/site_coverage.py's) is given, so it opens from a file
with no network. Bad input: one line on stderr, exit 2, nothing written.
"""

import argparse
import html
import json
import os
import re
import sys

from .reports import write_reports
from .site_coverage import load_json, sites_html

# Inside a <script> element the HTML parser ends the element at "</script", and after
# "<!--" a "<script" would make it miss the real end, whatever the JavaScript means by
# them. Written "\x3C/script" and "\x3Cscript" (the same text in a JavaScript string,
# template or regular expression; in a comment it does not matter), neither is a tag.
SCRIPT_TAG = re.compile(r"<(/?script)", re.IGNORECASE)

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
body {{ margin: 0; font-family: system-ui, sans-serif; }}
#sites {{ max-width: 1200px; margin: 2em auto; padding: 0 1em; }}
#sites table {{ border-collapse: collapse; font-size: 0.9em; }}
#sites th, #sites td {{ border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: right; }}
#sites th:first-child, #sites td:first-child, #sites .text {{ text-align: left; }}
#sites td.zero {{ color: #aaa; }}
#sites tr.unreached {{ background: #fde2e2; }}
</style>
</head>
<body>
<script>
// The viewer routes by the address's fragment and rewrites it when it starts: keep the
// one the page was opened with.
const opened_at = location.hash;
</script>
<mutation-test-report-app title-postfix="{title}"></mutation-test-report-app>
{sites}<script>
{component}
</script>
<script id="mutation-report" type="application/json">{report}</script>
<script>
(function () {{
  const app = document.querySelector("mutation-test-report-app");
  app.report = JSON.parse(document.getElementById("mutation-report").textContent);
  function follow_theme() {{ document.body.style.backgroundColor = app.themeBackgroundColor || ""; }}
  app.addEventListener("theme-changed", follow_theme);
  follow_theme();
  // A link to the site coverage below the viewer: scroll there once the viewer has drawn.
  const sites = document.getElementById("sites");
  if (sites && opened_at === "#sites") {{
    app.updateComplete.then(() => requestAnimationFrame(() => sites.scrollIntoView()));
  }}
}})();
</script>
</body>
</html>
"""


def inline_script(code):
    """JavaScript that means the same, safe to place inside a <script> element."""
    return SCRIPT_TAG.sub(r"\\x3C\1", code)


def inline_json(value):
    """JSON that parses to the same value, safe inside a <script> element: every "<" is
    written as the escape \\u003c, so no tag can start inside it."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


def bundle_page(report, component, sites=None, title="moqsim mutation report"):
    """The page: the viewer component, the report and (if given) the site coverage."""
    return PAGE.format(title=html.escape(title), component=inline_script(component),
                       report=inline_json(report), sites=sites_html(sites, report) if sites else "")


def load_report(path):
    report = load_json(path, "mutation report")
    if not isinstance(report, dict) or str(report.get("schemaVersion", "")).split(".")[0] != "2" \
            or not isinstance(report.get("files"), dict):
        raise ValueError(f"{path} is not a mutation-testing report of schema version 2")
    return report


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report")
    parser.add_argument("component")
    parser.add_argument("out")
    parser.add_argument("--sites", help="the site coverage (sites.json) to show below the report")
    args = parser.parse_args()
    try:
        report = load_report(args.report)
        sites = load_json(args.sites, "site coverage") if args.sites else None
        try:
            with open(args.component, encoding="utf-8") as handle:
                component = handle.read()
        except OSError as error:
            raise ValueError(f"cannot read the viewer {args.component}: {error.strerror}") from error
        page = bundle_page(report, component, sites)
        folder, name = os.path.split(os.path.abspath(args.out))
        write_reports(folder, [(name, page)])
    except ValueError as error:
        print(f"report: {error}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
