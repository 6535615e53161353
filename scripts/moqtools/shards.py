"""Which share of a run this process takes, with moqsim as the one authority: `moqsim shard
--json` reads the engines' variables by the rules of moqsim sweep (runner/shard.cpp) and
answers the shard's index and total and every variable it read, or refuses a bad
environment in one line (ShardError here, its message moqsim's). Asking it also tells a
GoogleTest-style runner that the run understood sharding (moqsim touches its status file).

  python3 -m moqtools.shards NAME MOQSIM   checks this environment before a long build:
                                           a bad shard is one line "NAME: ...", exit 2
"""

import dataclasses
import json
import os
import subprocess
import sys


class ShardError(Exception):
    pass


@dataclasses.dataclass(frozen=True)
class Shard:
    index: int
    total: int
    # Every variable moqsim reads for it: a run that passes its environment on to programs
    # that shard themselves (moqsim sweep) takes these out first.
    variables: tuple


def shard_from_environment(moqsim, environ):
    """This process's Shard as `moqsim shard` reads `environ`; one shard of one when no
    engine's variables are set."""
    try:
        run = subprocess.run([moqsim, "shard", "--json"], env=dict(environ), capture_output=True, text=True,
                             timeout=60, check=False)
    except OSError as error:
        raise ShardError(f"cannot run {moqsim} shard ({error.strerror})") from error
    if run.returncode == 2:
        raise ShardError(run.stderr.strip().removeprefix("moqsim: "))
    try:
        answer = json.loads(run.stdout) if run.returncode == 0 else None
        return Shard(int(answer["index"]), int(answer["total"]), tuple(answer["variables"]))
    except (TypeError, KeyError, ValueError) as error:
        raise ShardError(f"{moqsim} shard --json gave no shard (status {run.returncode}): "
                         f"{(run.stderr or run.stdout).strip()[:200]}") from error


def main(argv):
    if len(argv) != 3:
        print("usage: python3 -m moqtools.shards NAME MOQSIM", file=sys.stderr)
        return 2
    try:
        shard_from_environment(argv[2], os.environ)
    except ShardError as error:
        print(f"{argv[1]}: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
