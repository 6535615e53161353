"""Where a mutation site is in its source: the span of its MOQ_SITE(...) expression.

site_location(source, name, line) gives the mutation-testing report's location
{"start": {"line", "column"}, "end": {"line", "column"}} (1-based lines and columns, the
end just past the closing bracket) of the MOQ_SITE or MOQ_SITE_EXPLAINED call that names
`name` on `line` (the line the site registered), so the report viewer marks exactly the
switch. A call it cannot find (the file changed since the run) gives the whole line.
"""

import re

SITE_CALL = re.compile(r"MOQ_SITE(?:_EXPLAINED)?\s*\(")


def whole_line(line):
    return {"start": {"line": line, "column": 1}, "end": {"line": line + 1, "column": 1}}


def closing_bracket(lines, row, column):
    """(row, column) just past the bracket that closes the one at lines[row][column],
    skipping brackets inside string and character literals; None if it never closes."""
    depth = 0
    quote = None
    while row < len(lines):
        text = lines[row]
        while column < len(text):
            char = text[column]
            if quote:
                if char == "\\":
                    column += 1
                elif char == quote:
                    quote = None
            elif char in "\"'":
                quote = char
            elif char == "(":
                depth += 1
            elif char == ")":
                depth -= 1
                if depth == 0:
                    return row, column + 1
            column += 1
        row, column = row + 1, 0
    return None


def site_location(source, name, line):
    lines = source.split("\n")
    if not 1 <= line <= len(lines):
        return whole_line(line)
    text = lines[line - 1]
    quoted = text.find(f'"{name}"')
    calls = [match for match in SITE_CALL.finditer(text) if quoted < 0 or match.start() < quoted]
    if not calls:
        return whole_line(line)
    call = calls[-1]
    end = closing_bracket(lines, line - 1, call.end() - 1)
    if end is None:
        return whole_line(line)
    return {"start": {"line": line, "column": call.start() + 1},
            "end": {"line": end[0] + 1, "column": end[1] + 1}}
