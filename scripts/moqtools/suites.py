"""The property suites, as moqsim names them: `moqsim list --suites` is the one list (a
suite registers itself in properties/), so no script writes the suites out. (Bash reads
it straight from moqsim.)"""

import subprocess


class SuitesError(Exception):
    pass


def suite_names(moqsim):
    """The suite names `moqsim list --suites` prints, in its order."""
    try:
        run = subprocess.run([moqsim, "list", "--suites"], capture_output=True, text=True, timeout=60, check=False)
    except OSError as error:
        raise SuitesError(f"cannot run {moqsim} list --suites ({error.strerror})") from error
    names = run.stdout.split()
    if run.returncode != 0 or not names:
        raise SuitesError(f"{moqsim} list --suites named no suite (status {run.returncode}): "
                          f"{run.stderr.strip()[:200]}")
    return names

