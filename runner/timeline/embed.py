#!/usr/bin/env python3
"""Writes a C++ source that holds the timeline page's style sheet and script (files beside
this one) as string views of runner/timeline_assets.hpp, so the page stays one file.

Usage: embed.py OUT.cpp timeline.css timeline.js
"""
import sys


def literal(text):
    """A raw string literal of `text` whose delimiter the text does not hold."""
    delimiter = "asset"
    while f"){delimiter}\"" in text:
        delimiter += "_"
    return f'R"{delimiter}({text}){delimiter}"'


def main(argv):
    if len(argv) != 4:
        print("usage: embed.py OUT.cpp timeline.css timeline.js", file=sys.stderr)
        return 2
    out, css, js = argv[1:]
    with open(css, encoding="utf-8") as sheet, open(js, encoding="utf-8") as script:
        style, code = sheet.read(), script.read()
    with open(out, "w", encoding="utf-8") as source:
        source.write("// Written by runner/timeline/embed.py from runner/timeline/: do not edit.\n"
                     '#include "runner/timeline_assets.hpp"\n\n'
                     "namespace moq::runner::timeline_assets {\n\n"
                     f"const std::string_view style_sheet = {literal(style)};\n\n"
                     f"const std::string_view script = {literal(code)};\n\n"
                     "}  // namespace moq::runner::timeline_assets\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
