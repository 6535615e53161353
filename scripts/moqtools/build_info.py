"""What a configured Meson build folder records of itself (meson-info/), for the scripts
that must tell whether a folder set up earlier has an option on, or where its programs are.

  python3 -m moqtools.build_info option FOLDER NAME        the option's value (true/false
                                                           for a boolean)
  python3 -m moqtools.build_info executables FOLDER NAME...  "NAME PATH" for each of the
                                                           named executables the folder
                                                           defines, PATH relative to FOLDER
Exit 2 (one line on stderr) if the folder has no such record or option.
"""

import json
import os
import sys


def record(folder, name):
    with open(os.path.join(folder, "meson-info", f"intro-{name}.json"), encoding="utf-8") as source:
        return json.load(source)


def option_value(folder, name):
    """The option's value, or None when the folder records no such option."""
    return next((option["value"] for option in record(folder, "buildoptions") if option["name"] == name), None)


def executables(folder, names):
    """(name, path relative to folder) of each executable target among `names`."""
    return [(target["name"], os.path.relpath(target["filename"][0], folder)) for target in record(folder, "targets")
            if target["name"] in names and target["type"] == "executable"]


def main(argv):
    if len(argv) < 4 or argv[1] not in ("option", "executables") or (argv[1] == "option" and len(argv) != 4):
        print("usage: python3 -m moqtools.build_info option FOLDER NAME | executables FOLDER NAME...",
              file=sys.stderr)
        return 2
    try:
        if argv[1] == "executables":
            for name, path in executables(argv[2], argv[3:]):
                print(name, path)
            return 0
        value = option_value(argv[2], argv[3])
    except (OSError, ValueError, KeyError, IndexError) as error:
        print(f"build_info: {argv[2]}: {error}", file=sys.stderr)
        return 2
    if value is None:
        print(f"build_info: {argv[2]} has no option {argv[3]}", file=sys.stderr)
        return 2
    print(json.dumps(value) if isinstance(value, bool) else value)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
