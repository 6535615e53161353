"""The deploy/ files as moqsim needs them, and the Kubernetes Job run for real, locally.

soak-cronjob.yaml: the nightly soak, an Indexed Job of shards whose pods are run here
as the Job would run them (a second each), then the merge CronJob's command, which must
join them and refuse a missing shard; the merge runs after the soak's duration.
soak-nightly.yml: scheduled, a shard matrix, the state restored and saved, the merge.
sweep-job.yaml: an Indexed Job whose MOQSIM_SHARD_COUNT is its completions, whose pods
write their results to the volume merge-job.yaml reads, running the image's moqsim. Its
container's arguments are run here as each of its pods would run them (JOB_COMPLETION_INDEX
0 to completions - 1, $(VAR) expanded as the kubelet does, the volume a folder, fewer
seeds and cases), and merge-job.yaml's command then merges them: it must pass with every
shard and refuse a missing one. sweep-matrix.yml: the shard matrix is 0 to
GTEST_TOTAL_SHARDS - 1 and the merge job waits for the sweep. nightly.yml: scheduled, on
Debian 12 with git before each checkout, every script it names exists with the options it
passes, its mutation shards and their merge agree, and with .ci/run it runs every mode of
scripts/check (a check no CI job runs rots unseen). Containerfile: built from
Debian 12, moqsim its entrypoint. (deploy/validate checks the manifests against the
Kubernetes API's schema.)

Usage: deploy_test.py ROOT PATH/TO/moqsim. Ends with "deploy: N passed, M failed".
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "cli" / "tests"))
from moqsim_test_support import Checks, clean_environment  # noqa: E402

CHECKS_NAME = "deploy"



def expand(text, env):
    """$(NAME) replaced by NAME's value, as Kubernetes expands a container's arguments."""
    return re.sub(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)", lambda m: env.get(m.group(1), m.group(0)), text)


def check_shard_matrix(check, job, label):
    """A matrix job of GTEST_TOTAL_SHARDS shards: one job a shard index, each run to the
    end. Returns the shard count."""
    total = int(job["env"]["GTEST_TOTAL_SHARDS"])
    check(f"{label} has one job a shard", job["strategy"]["matrix"]["shard"] == list(range(total)))
    check(f"{label}: every shard runs to the end", job["strategy"].get("fail-fast") is False)
    check(f"{label}: the shard index is the matrix's", job["env"]["GTEST_SHARD_INDEX"] == "${{ matrix.shard }}")
    return total


def run_lines(job):
    return [step["run"] for step in job.get("steps", []) if "run" in step]


def check_nightly(root, check):
    """nightly.yml: scheduled; every job on Debian 12 with git before its checkout; every
    script it runs exists, with options the script names; the mutation shards and their
    merge; and with .ci/run it runs every mode scripts/check has."""
    workflow = yaml.safe_load((root / "deploy/ci/nightly.yml").read_text())
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as true
    crons = [entry.get("cron", "") for entry in triggers.get("schedule") or []]
    check("the nightly workflow runs on a schedule", len(crons) == 1 and len(crons[0].split()) == 5, str(crons))
    check("and by hand", "workflow_dispatch" in triggers)
    jobs = workflow["jobs"]
    for name, job in jobs.items():
        check(f"nightly job {name} runs on Debian 12", job.get("container") == "debian:bookworm")
        steps = job["steps"]
        checkout = [i for i, step in enumerate(steps) if str(step.get("uses", "")).startswith("actions/checkout")]
        git = [i for i, step in enumerate(steps) if re.search(r"apt-get install .*\bgit\b", step.get("run", ""))]
        check(f"nightly job {name} installs git before its checkout (a repository, not a tarball)",
              len(checkout) == 1 and git and git[0] < checkout[0], str(steps))
    help_of = {}
    for name, job in jobs.items():
        for command in run_lines(job):
            for script, options in re.findall(r"\b(scripts/[\w-]+)((?:\s+--?[\w-]+)*)", command):
                path = root / script
                check(f"nightly job {name}: {script} exists", path.is_file() and os.access(path, os.X_OK))
                if script not in help_of and path.is_file():
                    help_of[script] = subprocess.run([str(path), "--help"], capture_output=True, text=True,
                                                     check=False).stdout
                for option in options.split():
                    check(f"nightly job {name}: {script} knows {option}", option in help_of.get(script, ""))
    shards = jobs["mutation"]
    total = check_shard_matrix(check, shards, "the mutation matrix")
    check("each mutation shard keeps its result",
          any(f"mutation-shard-${{{{ matrix.shard }}}}-of-{total}.json" in str(step.get("with", {}).get("path"))
              for step in shards["steps"]))
    report = jobs["mutation-report"]
    check("the mutation report waits for the shards and runs after a failing one",
          report["needs"] == "mutation" and "!cancelled()" in report["if"])
    check("the mutation report merges every shard",
          any(f"scripts/mutate --merge reports/mutation-shard-*-of-{total}.json" in run for run in run_lines(report)))
    ran = " ".join(run for job in jobs.values() for run in run_lines(job))
    modes = set(re.findall(r"^\s+(--[a-z]+)\s", subprocess.run([str(root / "scripts/check"), "--help"],
                                                              capture_output=True, text=True, check=False).stdout,
                           re.M)) - {"--help"}
    ci_run = set(re.findall(r"^run_check( --[a-z]+)?$", (root / ".ci/run").read_text(), re.M))
    in_ci = {mode.strip() for mode in ci_run if mode}
    # --fuzz is scripts/fuzz's short run: the nightly runs scripts/fuzz longer.
    nightly = {mode for mode in modes if f"scripts/check {mode}" in ran or (mode == "--fuzz" and "scripts/fuzz" in ran)}
    check(".ci/run runs the default check", "" in ci_run)
    check("every mode of scripts/check runs in .ci/run or the nightly workflow",
          len(modes) >= 5 and modes <= in_ci | nightly, f"modes {sorted(modes)}, .ci/run {sorted(in_ci)}, "
          f"nightly {sorted(nightly)}")


def cron_minute(schedule):
    """The minute of the day a daily cron schedule ("M H * * *") runs at."""
    minute, hour, *rest = schedule.split()
    assert rest == ["*", "*", "*"], schedule
    return int(hour) * 60 + int(minute)


def duration_minutes(text):
    return int(text[:-1]) * {"s": 1 / 60, "m": 1, "h": 60}[text[-1]]


def check_soak_cronjob(check, root, moqsim, work):
    """soak-cronjob.yaml: the Indexed soak's pods run as the Job would run them (a second,
    a few cases a slice), then the merge CronJob's command joins their shards."""
    documents = {(d["kind"], d["metadata"]["name"]): d
                 for d in yaml.safe_load_all((root / "deploy/kubernetes/soak-cronjob.yaml").read_text())}
    claim = documents[("PersistentVolumeClaim", "moqsim-soak")]
    soak, merge = documents[("CronJob", "moqsim-soak")], documents[("CronJob", "moqsim-soak-merge")]
    job = soak["spec"]["jobTemplate"]["spec"]
    completions = job["completions"]
    pod = job["template"]["spec"]
    container = pod["containers"][0]
    env = {e["name"]: e for e in container.get("env", [])}
    check("the soak CronJob runs an Indexed Job of shards", job.get("completionMode") == "Indexed" and completions > 1)
    check("its MOQSIM_SHARD_COUNT is the Job's completions",
          env.get("MOQSIM_SHARD_COUNT", {}).get("value") == str(completions))
    check("its JOB_COMPLETION_INDEX comes from the pod's completion index annotation",
          env.get("JOB_COMPLETION_INDEX", {}).get("valueFrom", {}).get("fieldRef", {}).get("fieldPath")
          == "metadata.annotations['batch.kubernetes.io/job-completion-index']")
    merge_pod = merge["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    claims = {v["persistentVolumeClaim"]["claimName"] for p in (pod, merge_pod) for v in p["volumes"]}
    check("both CronJobs mount the soak's claim and run one image", claims == {claim["metadata"]["name"]} and
          merge_pod["containers"][0]["image"] == container["image"])
    duration = next(a for a in container["args"] if not a.startswith("--"))
    check("the merge runs after the soak's duration", cron_minute(merge["spec"]["schedule"]) >=
          cron_minute(soak["spec"]["schedule"]) + duration_minutes(duration), duration)
    check("neither overlaps its last night's run",
          all(c["spec"].get("concurrencyPolicy") == "Forbid" for c in (soak, merge)))

    results = work / "soak"
    results.mkdir()
    mount = container["volumeMounts"][0]["mountPath"]
    image_soak = container["command"][1]

    def local(text):
        # The mount first, where it stands as a path of its own (not inside .../soak.py).
        text = re.sub(rf"(?<![\w.]){re.escape(mount)}(?![\w.])", str(results), text)
        return text.replace(image_soak, str(root / "scripts/moqtools/soak.py")).replace("/usr/local/bin/moqsim", moqsim)

    args = [local(a) for a in container["args"] if a != duration] + ["1s", "--cases=20"]
    statuses = []
    for index in range(completions):
        pod_env = clean_environment({"JOB_COMPLETION_INDEX": str(index),
                                     "MOQSIM_SHARD_COUNT": env["MOQSIM_SHARD_COUNT"]["value"]})
        run = subprocess.run([local(container["command"][0]), local(image_soak), *args], env=pod_env,
                             capture_output=True, text=True, check=False)
        statuses.append((run.returncode, run.stderr.strip()[-200:]))
    check("every soak pod passes", all(s == 0 for s, _ in statuses), str(statuses))
    command = [local(part) for part in merge_pod["containers"][0]["command"]]
    merged = subprocess.run(command, env=clean_environment(), capture_output=True, text=True, check=False)
    check("the merge CronJob's command joins the shards and moves the state on",
          merged.returncode == 0 and (results / "soak.html").is_file() and
          json.loads((results / "soak-state.json").read_text())["next_seed"] > 10_000_000, merged.stderr)
    (results / f"soak-shard-1-of-{completions}.json").unlink()
    missing = subprocess.run(command, env=clean_environment(), capture_output=True, text=True, check=False)
    check("the merge fails without a shard", missing.returncode == 2 and "missing" in missing.stderr, missing.stderr)
    shutil.rmtree(results)


def check_soak_workflow(check, root):
    workflow = yaml.safe_load((root / "deploy/ci/soak-nightly.yml").read_text())
    jobs = workflow["jobs"]
    soak = jobs["soak"]
    check("the nightly soak is scheduled", bool(workflow[True].get("schedule")))  # YAML reads `on` as true
    check_shard_matrix(check, soak, "the soak matrix")
    runs = [step.get("run", "") for step in soak["steps"]]
    check("each shard soaks its seeds from the restored state",
          any("soak.py" in run for run in runs) and
          any(step.get("uses", "").startswith("actions/cache/restore") for step in soak["steps"]))
    merge = jobs["merge"]
    check("the soak's merge waits for the shards, runs after a failing one and saves the state",
          merge["needs"] == "soak" and "!cancelled()" in merge["if"] and
          any("soak.py --merge" in step.get("run", "") for step in merge["steps"]) and
          any(step.get("uses", "").startswith("actions/cache/save") for step in merge["steps"]))


def main(argv):
    root, moqsim = Path(argv[1]), argv[2]
    check = Checks(CHECKS_NAME)

    documents = list(yaml.safe_load_all((root / "deploy/kubernetes/sweep-job.yaml").read_text()))
    kinds = {d["kind"]: d for d in documents}
    claim, job = kinds.get("PersistentVolumeClaim"), kinds.get("Job")
    merge_job = yaml.safe_load((root / "deploy/kubernetes/merge-job.yaml").read_text())
    check("sweep-job.yaml holds a volume claim and a Job", claim is not None and job is not None, str(list(kinds)))
    spec = job["spec"]
    completions = spec["completions"]
    check("the Job is Indexed", spec.get("completionMode") == "Indexed")
    check("its parallelism is 1 to completions", 1 <= spec.get("parallelism", 1) <= completions)
    pod = spec["template"]["spec"]
    check("its pods are not restarted in place", pod.get("restartPolicy") == "Never")
    container = pod["containers"][0]
    env = {e["name"]: e for e in container.get("env", [])}
    check("MOQSIM_SHARD_COUNT is the Job's completions",
          env.get("MOQSIM_SHARD_COUNT", {}).get("value") == str(completions), str(env.get("MOQSIM_SHARD_COUNT")))
    check("JOB_COMPLETION_INDEX comes from the pod's completion index annotation",
          env.get("JOB_COMPLETION_INDEX", {}).get("valueFrom", {}).get("fieldRef", {}).get("fieldPath")
          == "metadata.annotations['batch.kubernetes.io/job-completion-index']")
    mount = container["volumeMounts"][0]
    volume = {v["name"]: v for v in pod["volumes"]}[mount["name"]]
    check("the pods mount the claim", volume["persistentVolumeClaim"]["claimName"] == claim["metadata"]["name"])
    merge_pod = merge_job["spec"]["template"]["spec"]
    check("the merge Job mounts the same claim",
          merge_pod["volumes"][0]["persistentVolumeClaim"]["claimName"] == claim["metadata"]["name"])
    check("both Jobs run the same image", merge_pod["containers"][0]["image"] == container["image"])

    with tempfile.TemporaryDirectory() as work_dir:
        results = Path(work_dir) / "results"
        results.mkdir()
        mount_path = mount["mountPath"]

        def local(text):
            return text.replace(mount_path, str(results))

        # The pods' arguments with a short sweep: the same flags, fewer seeds and cases.
        args = [re.sub(r"^--seeds=.*", "--seeds=1-2", a) for a in container["args"]] + ["--cases=5"]
        base = clean_environment()
        statuses = []
        for index in range(completions):
            pod_env = {**base, "JOB_COMPLETION_INDEX": str(index),
                       "MOQSIM_SHARD_COUNT": env["MOQSIM_SHARD_COUNT"]["value"]}
            run = subprocess.run([moqsim, *[local(expand(a, pod_env)) for a in args]], env=pod_env,
                                 capture_output=True, text=True, check=False)
            statuses.append((run.returncode, run.stderr.strip()))
        check("every pod's sweep passes", all(s == 0 for s, _ in statuses), str(statuses))
        written = sorted(p.name for p in results.iterdir())
        check("each pod wrote its own result", written == sorted(f"shard-{i}.json" for i in range(completions)),
              str(written))

        # The merge Job's command, with moqsim from this build.
        command = [local(part) for part in merge_pod["containers"][0]["command"]]
        tools = Path(work_dir) / "bin"
        tools.mkdir()
        (tools / "moqsim").symlink_to(os.path.abspath(moqsim))
        path_env = {**base, "PATH": f"{tools}:{base.get('PATH', '')}"}
        merge = subprocess.run(command, env=path_env, capture_output=True, text=True, check=False)
        check("the merge Job's command merges them", merge.returncode == 0 and (results / "all.json").is_file(),
              merge.stderr)
        if (results / "all.json").is_file():
            merged = json.loads((results / "all.json").read_text())
            check("the merged result has every shard", merged["shard"] == {"merged": completions, "total": completions})
            print(f"deploy: {completions} pods of sweep-job.yaml merged: " + "; ".join(merge.stdout.splitlines()[:2]))
        (results / "all.json").unlink(missing_ok=True)
        (results / "shard-3.json").unlink()
        missing = subprocess.run(command, env=path_env, capture_output=True, text=True, check=False)
        check("the merge Job fails without a shard", missing.returncode == 2 and "shard 3" in missing.stderr,
              missing.stderr)
        shutil.rmtree(results)
        check_soak_cronjob(check, root, moqsim, Path(work_dir))

    check_soak_workflow(check, root)
    workflow = yaml.safe_load((root / "deploy/ci/sweep-matrix.yml").read_text())
    jobs = workflow["jobs"]
    check_shard_matrix(check, jobs["sweep"], "the CI matrix")
    check("the merge job waits for the shards and runs after a failing one",
          jobs["merge"]["needs"] == "sweep" and "!cancelled()" in jobs["merge"]["if"])
    check("the merge job runs moqsim merge",
          any("moqsim merge" in step.get("run", "") for step in jobs["merge"]["steps"]))

    check_nightly(root, check)

    containerfile = (root / "Containerfile").read_text()
    check("the image is built from Debian 12", re.search(r"^FROM debian:bookworm\b", containerfile, re.M) is not None)
    check("its entrypoint is moqsim", 'ENTRYPOINT ["moqsim"]' in containerfile)
    check("it builds moqsim in release", "--buildtype=release" in containerfile)
    # The soak's package beside it: soak.py and each moqtools module it imports, and the
    # modules those import.
    package = root / "scripts/moqtools"
    imported, wanted = set(), ["soak"]
    while wanted:
        name = wanted.pop()
        imported.add(name)
        wanted += [found for found in re.findall(r"^from \.(\w+) import", (package / f"{name}.py").read_text(), re.M)
                   if found not in imported]
    copied = re.search(r"^COPY (scripts/moqtools/\S+ )+/usr/local/lib/moqsim/moqtools/$", containerfile, re.M)
    check("the image holds the soak, the package modules it imports and Python",
          copied is not None and all(f"scripts/moqtools/{name}.py" in copied.group(0)
                                     for name in ["__init__", *imported]) and
          re.search(r"install .*\bpython3\b", containerfile) is not None, str(imported))
    return check.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
