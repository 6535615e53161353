"""Which share of a run this process takes, as the engine that started it says: the same
variables and rules as moqsim sweep (cli/shard.cpp), so one job definition shards both.

Engines: GoogleTest-style runners (GTEST_TOTAL_SHARDS / GTEST_SHARD_INDEX, or
TEST_TOTAL_SHARDS / TEST_SHARD_INDEX), a Kubernetes Indexed Job (JOB_COMPLETION_INDEX
with the count in MOQSIM_SHARD_COUNT) and a Slurm job array (SLURM_ARRAY_TASK_ID and
SLURM_ARRAY_TASK_COUNT, counted from SLURM_ARRAY_TASK_MIN, default 0, in steps of
SLURM_ARRAY_TASK_STEP, default 1). An empty variable counts as unset. Refused with
ShardError: a count that is no whole number from 1 to MAX_SHARDS, an index that is none
of the count's, half of a pair, and two engines that name different shards.
"""

import os
import re
import sys

MAX_SHARDS = 1000000
UINT64_MAX = 2**64 - 1
# Every variable read here: a run that passes its environment on to programs that shard
# themselves (moqsim sweep) takes these out first.
VARIABLES = ("GTEST_TOTAL_SHARDS", "GTEST_SHARD_INDEX", "TEST_TOTAL_SHARDS", "TEST_SHARD_INDEX",
             "MOQSIM_SHARD_COUNT", "JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT",
             "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_STEP")
KUBERNETES_HINT = (" (an Indexed Job sets it from .spec.completions in its manifest: "
                   "deploy/kubernetes/sweep-job.yaml)")


class ShardError(Exception):
    pass


def _whole_number(text, name, largest):
    if not re.fullmatch(r"[0-9]+", text) or int(text) > largest:
        raise ShardError(f"{name} takes a whole number up to {largest}, not '{text}'")
    return int(text)


def _count(text, name):
    total = _whole_number(text, name, MAX_SHARDS)
    if total == 0:
        raise ShardError(f"{name} must be at least 1, not '{text}'")
    return total


def _check_in_range(index, total, index_text, total_name):
    if index >= total:
        raise ShardError(f"{index_text} is out of range: {total_name} is {total} (indices 0 to {total - 1})")


def _paired(environ, total_name, index_name, count_hint=""):
    total, index = environ.get(total_name) or None, environ.get(index_name) or None
    if total is None and index is not None:
        raise ShardError(f"{index_name} is set but {total_name} is not{count_hint}")
    if total is not None and index is None:
        raise ShardError(f"{total_name} is set but {index_name} is not")
    return None if total is None else (total, index)


def _from_pair(environ, total_name, index_name, count_hint=""):
    values = _paired(environ, total_name, index_name, count_hint)
    if values is None:
        return None
    total = _count(values[0], total_name)
    index = _whole_number(values[1], index_name, UINT64_MAX)
    _check_in_range(index, total, f"{index_name} {values[1]}", total_name)
    return f"{index_name}/{total_name}", index, total


def _from_slurm(environ):
    values = _paired(environ, "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_ID")
    if values is None:
        return None
    total = _count(values[0], "SLURM_ARRAY_TASK_COUNT")
    task_id = _whole_number(values[1], "SLURM_ARRAY_TASK_ID", UINT64_MAX)
    low = environ.get("SLURM_ARRAY_TASK_MIN") or None
    low = 0 if low is None else _whole_number(low, "SLURM_ARRAY_TASK_MIN", UINT64_MAX)
    step_text = environ.get("SLURM_ARRAY_TASK_STEP") or None
    step = 1 if step_text is None else _whole_number(step_text, "SLURM_ARRAY_TASK_STEP", UINT64_MAX)
    if step == 0:
        raise ShardError(f"SLURM_ARRAY_TASK_STEP must be at least 1, not '{step_text}'")
    id_text = f"SLURM_ARRAY_TASK_ID {values[1]}"
    if task_id < low:
        raise ShardError(f"{id_text} is below SLURM_ARRAY_TASK_MIN {low}")
    if (task_id - low) % step:
        raise ShardError(f"{id_text} is not SLURM_ARRAY_TASK_MIN {low} plus a multiple of SLURM_ARRAY_TASK_STEP {step}")
    index = (task_id - low) // step
    _check_in_range(index, total, f"{id_text} (index {index} from SLURM_ARRAY_TASK_MIN {low})",
                    "SLURM_ARRAY_TASK_COUNT")
    return "SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT", index, total


def shard_from_environment(environ):
    """(index, total) of this process's shard; (0, 1) when no engine's variables are set."""
    found = [shard for shard in (_from_pair(environ, "GTEST_TOTAL_SHARDS", "GTEST_SHARD_INDEX"),
                                 _from_pair(environ, "TEST_TOTAL_SHARDS", "TEST_SHARD_INDEX"),
                                 _from_pair(environ, "MOQSIM_SHARD_COUNT", "JOB_COMPLETION_INDEX", KUBERNETES_HINT),
                                 _from_slurm(environ)) if shard is not None]
    for names, index, total in found[1:]:
        if (index, total) != found[0][1:]:
            raise ShardError(f"{found[0][0]} say shard {found[0][1]} of {found[0][2]} but {names} say {index} of {total}")
    return found[0][1:] if found else (0, 1)


def acknowledge_shard():
    """Tells a GoogleTest-style runner this program understood sharding (touches its status file)."""
    for variable in ("GTEST_SHARD_STATUS_FILE", "TEST_SHARD_STATUS_FILE"):
        if os.environ.get(variable):
            with open(os.environ[variable], "a", encoding="utf-8"):
                pass


if __name__ == "__main__":
    # shard_env.py NAME: checks this process's environment before a long build; a bad
    # shard is one line on stderr naming NAME, exit 2.
    try:
        shard_from_environment(os.environ)
    except ShardError as error:
        print(f"{sys.argv[1] if len(sys.argv) > 1 else 'shard'}: {error}", file=sys.stderr)
        sys.exit(2)
