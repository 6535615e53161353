"""Writing reports: every file of one report replaced together or not at all.

write_reports(folder, [(name, text), ...]) writes each text to a temporary file beside
its target and renames them over their targets only once all are written, so a failed
run leaves the previous reports as they were. scripts/bench and scripts/moqtools/mutation.py
write their reports through it. html_page gives their HTML pages one look.
"""

import os


def write_reports(folder, outputs):
    os.makedirs(folder, exist_ok=True)
    temps = []
    try:
        for name, text in outputs:
            temp = os.path.join(folder, f".{name}.{os.getpid()}.tmp")
            temps.append(temp)
            with open(temp, "w", encoding="utf-8") as out:
                out.write(text)
        for (name, _), temp in zip(outputs, temps):
            os.replace(temp, os.path.join(folder, name))
    finally:
        for temp in temps:
            if os.path.exists(temp):
                os.remove(temp)


PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
body {{ font-family: system-ui, sans-serif; max-width: {width}; margin: 2em auto; padding: 0 1em; line-height: 1.4; }}
{style}</style>
</head>
<body>
<h1>{title}</h1>
{body}
</body>
</html>
"""


def html_page(title, body, style="", width="50em"):
    """A self-contained page of the reports: `title` (plain text) as its title and heading,
    then `body` (HTML), with the reports' style and `style` (CSS) added."""
    return PAGE.format(title=title, body=body, style=style, width=width)
