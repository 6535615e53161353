#!/usr/bin/env python3
"""Runs moqsim's bad-input catalogue (bad_input_cases.py): each case one test.

  bad_input_test.py MOQSIM             runs every case; ends with "badinput: N passed, M failed"
  bad_input_test.py --check-doc DOC    DOC lists exactly the catalogue's cases
  bad_input_test.py --write-doc DOC    rewrites that list in DOC
Exit status 0 only if everything passed; 2 for bad arguments.
"""
import copy
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bad_input_cases import CASES, DELETE, FIXTURES  # noqa: E402
from moqsim_test_support import clean_environment  # noqa: E402

BEGIN = "<!-- bad-input cases: written by python3 cli/tests/bad_input_test.py --write-doc docs/TESTING.md -->"
END = "<!-- end of bad-input cases -->"
TIMEOUT_SECONDS = 20


def make_fixtures(moqsim, folder):
    """Each fixture's file, by name; raises RuntimeError if moqsim cannot make one."""
    made = {}
    for number, (name, (env, args)) in enumerate(FIXTURES.items()):
        path = folder / f"fixture{number}.json"
        output = {"sweep": ["--json", str(path)], "explore": ["--resume", str(path)]}.get(args[0], ["--save", str(path)])
        run = subprocess.run([moqsim, *args, *output], env=clean_environment(env), capture_output=True,
                             text=True, timeout=TIMEOUT_SECONDS, check=False)
        if run.returncode != 0 or not path.is_file():
            raise RuntimeError(f"fixture '{name}' (moqsim {' '.join(args)}) failed: {run.stderr.strip()}")
        made[name] = path.read_text(encoding="utf-8")
    return made


def set_field(document, dotted, value):
    """Replaces (or, for DELETE, removes) the field at a dotted path such as "suites.0.run"."""
    *parents, last = dotted.split(".")
    for key in parents:
        document = document[int(key)] if isinstance(document, list) else document[key]
    key = int(last) if isinstance(document, list) else last
    if value == DELETE:
        del document[key]
    else:
        document[key] = value


def file_contents(spec, fixtures):
    if "text" in spec:
        return spec["text"]
    text = fixtures[spec["fixture"]]
    if "set" in spec:
        document = json.loads(text)
        for dotted, value in spec["set"].items():
            set_field(document, dotted, copy.deepcopy(value))
        text = json.dumps(document)
    if "cut" in spec:
        text = text[:spec["cut"]]
    return text


def lay_out(folder, files, fixtures):
    for name, spec in files.items():
        path = folder / name
        if spec.get("folder"):
            path.mkdir(parents=True)
        elif spec.get("fifo"):
            os.mkfifo(path)
        elif "sparse_bytes" in spec:
            with open(path, "wb") as out:
                out.truncate(spec["sparse_bytes"])
        else:
            path.write_text(file_contents(spec, fixtures), encoding="utf-8")


def snapshot(folder):
    """Every entry under `folder`: its kind, size, time and, for small files, contents."""
    seen = {}
    for path in sorted(folder.rglob("*")):
        stat = path.lstat()
        entry = (stat.st_mode, stat.st_size, stat.st_mtime_ns)
        if stat.st_mode & 0o170000 == 0o100000 and stat.st_size < (1 << 20):
            entry += (path.read_bytes(),)
        seen[str(path.relative_to(folder))] = entry
    return seen


def run_case(moqsim, case, fixtures, root):
    """The reasons `case` failed (none if it passed)."""
    folder = Path(tempfile.mkdtemp(dir=root))
    lay_out(folder, case.get("files", {}), fixtures)
    before = snapshot(folder)
    try:
        run = subprocess.run([moqsim, *case["args"]], cwd=folder, env=clean_environment(case.get("env", {})),
                             capture_output=True, timeout=TIMEOUT_SECONDS, check=False)
    except subprocess.TimeoutExpired:
        return [f"still running after {TIMEOUT_SECONDS} s (the bad input was not refused up front)"]
    stderr = run.stderr.decode("utf-8", "replace")
    problems = []
    if run.returncode != 2:
        problems.append(f"exit status {run.returncode}, wanted 2")
    lines = stderr.split("\n")
    if len(lines) != 2 or lines[1] != "" or not re.fullmatch(r"moqsim: \S.*", lines[0]):
        problems.append("stderr is not one line 'moqsim: ...'")
    for wanted in case["mentions"]:
        if wanted not in stderr:
            problems.append(f"stderr does not mention {wanted!r}")
    if run.stdout:
        problems.append(f"wrote to stdout: {run.stdout[:200]!r}")
    after = snapshot(folder)
    for name in sorted(set(before) | set(after)):
        if name not in before:
            problems.append(f"created {name}")
        elif name not in after:
            problems.append(f"removed {name}")
        elif before[name] != after[name]:
            problems.append(f"changed {name}")
    if problems:
        problems.append(f"stderr: {stderr.strip()[:300]!r}")
    return problems


def check_table():
    names = [case["name"] for case in CASES]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise SystemExit(f"bad_input_test: cases named twice: {', '.join(repeated)}")
    for case in CASES:
        if not case["mentions"] or set(case) - {"name", "args", "env", "files", "mentions"}:
            raise SystemExit(f"bad_input_test: case '{case['name']}' needs mentions and no other fields")


def run_all(moqsim):
    check_table()
    started = time.monotonic()
    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="moqsim-bad-input-") as root:
        try:
            fixtures = make_fixtures(moqsim, Path(root))
        except (RuntimeError, subprocess.TimeoutExpired) as error:
            print(f"bad_input_test: {error}", file=sys.stderr)
            print(f"badinput: 0 passed, {len(CASES)} failed")
            return 1
        for case in CASES:
            problems = run_case(moqsim, case, fixtures, root)
            if problems:
                failed += 1
                print(f"FAILED: {case['name']}: " + "; ".join(problems), file=sys.stderr)
            else:
                passed += 1
    print(f"{len(CASES)} bad-input cases in {time.monotonic() - started:.1f} s")
    print(f"badinput: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


def shell_word(word):
    """`word` as a shell would need it typed: $'...' for control characters."""
    if word and re.fullmatch(r"[A-Za-z0-9_./=,:+-]+", word):
        return word
    if any(ord(c) < 0x20 for c in word):
        return "$'" + "".join(f"\\x{ord(c):02x}" if ord(c) < 0x20 else c for c in word).replace("'", "\\'") + "'"
    return "'" + word.replace("'", "'\\''") + "'"


def describe_file(name, spec):
    if spec.get("folder"):
        return f"`{name}/` a folder"
    if spec.get("fifo"):
        return f"`{name}` a named pipe"
    if "sparse_bytes" in spec:
        return f"`{name}` {spec['sparse_bytes']} zero bytes"
    if "text" in spec:
        text = spec["text"]
        shown = json.dumps(text if len(text) <= 40 else text[:20] + "…" + text[-10:], ensure_ascii=False)
        return f"`{name}` {shown}"
    what = f"`{name}` the {spec['fixture']} " + ("sweep result" if "of" in spec["fixture"] else "saved case")
    changes = [f"`{field}` removed" if value == DELETE else f"`{field}` = `{json.dumps(value)}`"
               for field, value in spec.get("set", {}).items()]
    if changes:
        what += " with " + ", ".join(changes)
    if "cut" in spec:
        what += f" cut after {spec['cut']} characters"
    return what


def doc_table():
    rows = [BEGIN, "", "| case | what it feeds |", "| --- | --- |"]
    for case in CASES:
        command = " ".join([*(f"{k}={shell_word(v)}" for k, v in case.get("env", {}).items()), "moqsim",
                            *map(shell_word, case["args"])])
        feeds = [f"`{command}`"] + [describe_file(n, s) for n, s in case.get("files", {}).items()]
        rows.append(f"| {case['name']} | " + "; ".join(feeds).replace("|", "\\|") + " |")
    rows += ["", END]
    return "\n".join(rows)


def documented_section(text, doc):
    if text.count(BEGIN) != 1 or text.count(END) != 1:
        raise SystemExit(f"bad_input_test: {doc} has no single list of bad-input cases (its markers are missing)")
    start = text.index(BEGIN)
    return start, text.index(END) + len(END)


def main(argv):
    if len(argv) == 2 and not argv[1].startswith("--"):
        return run_all(str(Path(argv[1]).resolve()))
    if len(argv) == 3 and argv[1] in ("--check-doc", "--write-doc"):
        doc = Path(argv[2])
        if not doc.is_file():
            print(f"bad_input_test: no file {doc}", file=sys.stderr)
            return 2
        check_table()
        text = doc.read_text(encoding="utf-8")
        start, end = documented_section(text, doc)
        if argv[1] == "--write-doc":
            doc.write_text(text[:start] + doc_table() + text[end:], encoding="utf-8")
            return 0
        if text[start:end] != doc_table():
            print(f"bad_input_test: {doc} does not list the catalogue's cases as they are: run "
                  f"python3 cli/tests/bad_input_test.py --write-doc {doc}", file=sys.stderr)
            print("badinputdoc: 0 passed, 1 failed")
            return 1
        print(f"{doc} lists the {len(CASES)} bad-input cases")
        print("badinputdoc: 1 passed, 0 failed")
        return 0
    print("usage: bad_input_test.py MOQSIM | --check-doc DOC | --write-doc DOC", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
