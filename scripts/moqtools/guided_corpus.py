#!/usr/bin/env python3
"""The order in which the guided search replays a suite's kept corpus (docs/TESTING.md,
"Guided search", "The corpus's order").

  python3 -m moqtools.guided_corpus order GUIDED SUITE [--schemata JSON [--equivalents FILE]]
                                        [--candidates N --moqsim MOQSIM] [--jobs N]
                                        [--corpus DIR] [--out FILE]
  python3 -m moqtools.guided_corpus check [--corpus DIR] [SUITE...]
  python3 -m moqtools.guided_corpus seeds SUITE OUT [--corpus DIR]

GUIDED is fuzz/suite_guided of a build with -Dfuzz=true and -Dmutants=true (build-guided/).
DIR is the folder of the suites' corpora (default fuzz/corpus/); suite NAME's inputs are
DIR/suite-NAME/ and their order is DIR/suite-NAME.order, one file name a line.

order: asks libFuzzer what each input reaches (a merge with a control file: every edge, probe
bucket and site the input's run counts as a feature) and orders the inputs by rounds of a
greedy set cover: first the input that reaches the most features, then the one that adds
the most to what those before it reach, and so on; once nothing adds a feature, a new round
starts over on the inputs left. With --schemata (the build's core/schemata_mutants.json), it
first learns which inputs fail which mutant, for half of the generated mutants (those of the
suite's files in core/model/, and those of core/kio/, which every suite runs, where the
suite's own number fewer than 100; the other half is the comparison's,
moqtools.guided_compare): each mutant on, the corpus is replayed once
(MOQ_FUZZ_KEEP_GOING=1), and the inputs come first in rounds of a greedy cover of those
mutants, the rest after them in the feature order. With --candidates N, N generated cases
(moqsim replay --save, long ones of seeds no test sweeps) compete with the corpus: those the
first round of that cover picks are copied into DIR/suite-NAME/. --jobs N replays N at a
time. Writes the order to --out (default DIR/suite-NAME.order).
check: every suite's order names each of its inputs once and nothing else; prints each
stale order and "guided corpus: N orders, M stale", exit 1 when one is stale.
seeds: writes OUT, the comma-separated list libFuzzer's -seed_inputs=@OUT reads: the
suite's inputs in their order (an input the order leaves out, after them by name).
Bad input: one line on stderr, exit 2, nothing written.
"""

import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile

from . import mutation

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "fuzz", "corpus")


class UsageError(Exception):
    pass


def learned_from(mutant_id):
    """Whether the corpus's order may learn from this generated mutant: half of them, by a
    hash of the id. The comparison with the blind strategies samples only the other half
    (moqtools.guided_compare), so it measures the order on mutants it never saw."""
    return hashlib.sha256(mutant_id.encode()).digest()[0] % 2 == 0


# The suite whose operations drive each file of core/model/ most directly.
SUITE_OF_FILE = (("core/model/resume", "resume"), ("core/model/route", "resume"), ("core/model/group", "group"),
                 ("core/model/codec", "group"), ("core/model/recover", "group"), ("core/model/expiry", "group"),
                 ("core/model/track", "track"), ("core/model/walk", "track"), ("core/model/sequence", "track"),
                 ("core/model/subscriber", "fanout"), ("core/model/idle", "gate"), ("core/model/gated_read", "gate"))


# core/kio/ (waiters, cells, clocks) is under every suite: its mutants teach the order of a
# suite whose own files in core/model/ give it fewer than OWN_MUTANTS_ENOUGH to learn from.
# A suite with enough of its own learns from those alone: with core/kio/'s too, the orders of
# group and resume put the inputs that fail the hand-placed sites later (docs/TESTING.md).
EVERY_SUITE = "*"
OWN_MUTANTS_ENOUGH = 100


def generated_mutants(schemata, equivalents, with_kio=False):
    """{id: suite} of the compiled generated mutants of core/model/ in a build's table
    (core/schemata_mutants.json), each with the suite of its file, leaving out order_weaken's
    and those the reviewed list (scripts/equivalent-mutants.txt) holds; `with_kio`: those of
    core/kio/ too, their suite EVERY_SUITE."""
    try:
        with open(schemata, encoding="utf-8") as file:
            table = json.load(file)["mutants"]
        listed = set(mutation.read_equivalents(equivalents))
    except (json.JSONDecodeError, KeyError, TypeError) as error:
        raise UsageError(f"{schemata} is not a table of mutants ({error})") from None
    except mutation.UsageError as error:
        raise UsageError(str(error)) from None
    chosen = {}
    for mutant in table:
        if mutant["status"] != "compiled" or mutant["operator"] == "order_weaken" or mutant.get("key") in listed:
            continue
        for prefix, suite in SUITE_OF_FILE:
            if mutant["file"].startswith(prefix):
                chosen[mutant["id"]] = suite
                break
        else:
            if with_kio and mutant["file"].startswith("core/kio/"):
                chosen[mutant["id"]] = EVERY_SUITE
    return chosen


def inputs_of(corpus, suite):
    folder = os.path.join(corpus, f"suite-{suite}")
    if not os.path.isdir(folder):
        raise UsageError(f"{folder} is not a folder (a suite's guided corpus)")
    return sorted(name for name in os.listdir(folder) if os.path.isfile(os.path.join(folder, name)))


def order_path(corpus, suite):
    return os.path.join(corpus, f"suite-{suite}.order")


def read_order(path):
    with open(path, encoding="utf-8") as file:
        return [line.strip() for line in file if line.strip()]


def parse_control_file(text):
    """{file path: set of features} from a libFuzzer merge control file.

    Its first line is the number of files, its second how many belong to the first folder,
    then a path a line, then for each file run "STARTED i size", "FT i f..." and "COV i p...".
    """
    lines = text.splitlines()
    try:
        count = int(lines[0])
        paths = lines[2:2 + count]
    except (IndexError, ValueError):
        raise UsageError("libFuzzer's merge control file has no file list") from None
    if len(paths) != count:
        raise UsageError(f"libFuzzer's merge control file lists {len(paths)} files, not {count}")
    features = {}
    for line in lines[2 + count:]:
        words = line.split()
        if len(words) >= 2 and words[0] == "FT":
            features[paths[int(words[1])]] = {int(word) for word in words[2:]}
    return features


def reached_features(guided, suite, folder):
    """{input name: features} for every input of `folder`, as suite_guided's libFuzzer counts them."""
    with tempfile.TemporaryDirectory() as scratch:
        control = os.path.join(scratch, "control")
        kept = os.path.join(scratch, "kept")
        os.mkdir(kept)
        env = dict(os.environ, MOQ_FUZZ_SUITE=suite, MOQ_FUZZ_FINDINGS=scratch)
        env.pop("MOQ_MUTANT", None)
        done = subprocess.run([guided, "-merge=1", f"-merge_control_file={control}", "-max_len=8192",
                               "-entropic=0", "-timeout=10", f"-artifact_prefix={scratch}/", kept, folder],
                              capture_output=True, text=True, env=env, check=False)
        if done.returncode != 0 or not os.path.exists(control):
            tail = " | ".join(done.stderr.strip().splitlines()[-3:])
            raise UsageError(f"libFuzzer's merge over {folder} failed: {tail}")
        with open(control, encoding="utf-8") as file:
            by_path = parse_control_file(file.read())
    return {os.path.basename(path): found for path, found in by_path.items()}


def greedy_rounds(sets, tie):
    """The names of `sets` in rounds of a greedy set cover: each next the one that adds the
    most to its round's union (ties: the largest `tie(name)`); a round ends when nothing
    left adds anything, and the next starts over on the names left."""
    left = dict(sets)
    rounds = []
    while left:
        covered = set()
        rounds.append([])
        while left:
            best = max(left, key=lambda name: (len(left[name] - covered), tie(name)))
            if not left[best] - covered and covered:
                break
            covered |= left.pop(best)
            rounds[-1].append(best)
    return rounds


def cover_rounds(features):
    """Rounds of a greedy cover of the features (ties: fewer features in all, then the name)."""
    return greedy_rounds(features, lambda name: (-len(features[name]), _reverse(name)))


def failing_inputs(guided, suite, paths, mutant):
    """The names of the inputs (`paths`, replayed in this order) whose run fails with
    `mutant` switched on. A mutant that stops the process, or hangs it past a minute (a
    deadlock on a thread libFuzzer's timer does not watch), stops the list there."""
    with tempfile.TemporaryDirectory() as scratch:
        listed = os.path.join(scratch, "seeds")
        write_atomically(listed, ",".join(paths))
        os.mkdir(os.path.join(scratch, "kept"))
        env = dict(os.environ, MOQ_FUZZ_SUITE=suite, MOQ_FUZZ_FINDINGS=scratch, MOQ_MUTANT=mutant,
                   MOQ_FUZZ_KEEP_GOING="1")
        try:
            # A mutant that crashes or hangs the process leaves libFuzzer's artifact in the scratch folder.
            done = subprocess.run([guided, "-runs=0", "-shuffle=0", "-prefer_small=0", f"-seed_inputs=@{listed}",
                                   "-max_len=8192", "-entropic=0", "-timeout=5", f"-artifact_prefix={scratch}/",
                                   os.path.join(scratch, "kept")],
                                  capture_output=True, text=True, env=env, timeout=60, check=False)
            said = done.stderr
        except subprocess.TimeoutExpired as hung:
            said = hung.stderr or ""
            said = said.decode(errors="replace") if isinstance(said, bytes) else said
    executions = (int(found) for found in re.findall(r"^guided failure at execution (\d+):", said, re.M))
    return {os.path.basename(paths[execution - 1]) for execution in executions if 0 < execution <= len(paths)}


# Candidates: generated cases late in a sweep's ramp of sizes, where its cases are longest.
CANDIDATE_SEEDS_FROM = 700001
CANDIDATE_CASES = range(100, 200)


def candidate_inputs(moqsim, suite, count, folder):
    """Writes `count` fresh inputs of `suite` into `folder`: generated cases (alternately of the
    fixed and the swarm mix, from seeds no sweep of the tests uses) with no decision bytes,
    so each runs as a seeded random schedule. Returns their paths."""
    paths = []
    for number in range(count):
        seed = CANDIDATE_SEEDS_FROM + number
        case = CANDIDATE_CASES[(number * 37) % len(CANDIDATE_CASES)]
        saved = os.path.join(folder, f"case-{number}.json")
        done = subprocess.run([moqsim, "replay", "--suite", suite, "--seed", str(seed), "--case", str(case),
                               "--mix", "swarm" if number % 2 else "fixed", "--save", saved],
                              capture_output=True, text=True, check=False)
        if not os.path.exists(saved):
            tail = " | ".join(done.stderr.strip().splitlines()[-2:])
            raise UsageError(f"moqsim replay wrote no case for {suite} seed {seed} case {case}: {tail}")
        with open(saved, encoding="utf-8") as file:
            stored = json.load(file)["case"]
        os.remove(saved)
        data = f"{suite}\n{json.dumps(stored, separators=(',', ':'))}\n".encode()
        path = os.path.join(folder, hashlib.sha1(data).hexdigest())
        with open(path, "wb") as file:
            file.write(data)
        paths.append(path)
    return paths


def kill_rounds(kills, rank):
    """Rounds of a greedy cover of the mutants by the inputs that fail some (ties: the
    earlier by `rank`)."""
    return greedy_rounds({name: found for name, found in kills.items() if found}, lambda name: -rank[name])


def kill_sets(guided, suite, paths, mutants, jobs):
    """{input name: the mutants it fails} for the inputs `paths`."""
    kills = {os.path.basename(path): set() for path in paths}
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for mutant, failed in zip(mutants, pool.map(lambda mutant: failing_inputs(guided, suite, paths, mutant),
                                                    mutants)):
            for name in failed:
                kills[name].add(mutant)
    return kills


def learned_order(guided, suite, corpus, names, features, mutants, jobs, candidates=()):
    """The inputs ordered by what they teach: first rounds of a cover of the mutants they
    fail, then the rest in rounds of a cover of the features they reach. `candidates`
    (paths of inputs outside the corpus) compete in the first round of the cover: those it
    picks are copied into the corpus and ordered with it. Returns the order, the rounds of
    the cover, the mutants some input fails and the candidates taken."""
    feature_order = [name for round_names in cover_rounds(features) for name in round_names]
    folder = os.path.join(corpus, f"suite-{suite}")
    candidate_names = [os.path.basename(path) for path in candidates if os.path.basename(path) not in features]
    order_known = feature_order + candidate_names
    rank = {name: position for position, name in enumerate(order_known)}
    paths = [os.path.join(folder, name) for name in feature_order]
    paths += [path for path in candidates if os.path.basename(path) in set(candidate_names)]
    kills = kill_sets(guided, suite, paths, mutants, jobs)
    rounds = kill_rounds(kills, rank)
    taken = [name for name in (rounds[0] if rounds else []) if name in set(candidate_names)]
    for name in taken:
        with open(next(path for path in paths if os.path.basename(path) == name), "rb") as source:
            data = source.read()
        with open(os.path.join(folder, name), "wb") as target:
            target.write(data)
    rounds = [[name for name in round_names if name in set(feature_order) or name in set(taken)]
              for round_names in rounds]
    rounds = [round_names for round_names in rounds if round_names]
    first = [name for round_names in rounds for name in round_names]
    chosen = set(first)
    failed_by_some = {mutant for name, found in kills.items() if name in chosen or name in set(feature_order)
                      for mutant in found}
    return first + [name for name in feature_order if name not in chosen], rounds, failed_by_some, taken


def _reverse(name):
    # max() picks the largest key: the name's characters negated pick the smallest name first.
    return tuple(-ord(character) for character in name)


def check(corpus, suites):
    """The stale orders: (suite, why) for each whose names differ from its inputs."""
    stale = []
    for suite in suites:
        path = order_path(corpus, suite)
        names = inputs_of(corpus, suite)
        if not os.path.exists(path):
            stale.append((suite, f"{os.path.relpath(path, ROOT)} is missing"))
            continue
        order = read_order(path)
        missing = sorted(set(names) - set(order))
        unknown = sorted(set(order) - set(names))
        twice = sorted({name for name in order if order.count(name) > 1})
        for what, found in (("leaves out", missing), ("names no input", unknown), ("names twice", twice)):
            if found:
                stale.append((suite, f"{os.path.relpath(path, ROOT)} {what} {found[0]}"
                                     + (f" and {len(found) - 1} more" if len(found) > 1 else "")))
    return stale


def seed_list(corpus, suite):
    """The suite's input paths in their order, the ones the order leaves out after them."""
    names = inputs_of(corpus, suite)
    path = order_path(corpus, suite)
    order = [name for name in read_order(path) if name in set(names)] if os.path.exists(path) else []
    rest = sorted(set(names) - set(order))
    folder = os.path.join(corpus, f"suite-{suite}")
    return [os.path.join(folder, name) for name in order + rest]


def write_atomically(path, text):
    temporary = f"{path}.tmp"
    with open(temporary, "w", encoding="utf-8") as file:
        file.write(text)
    os.replace(temporary, path)


def all_suites(corpus):
    return sorted(name[len("suite-"):] for name in os.listdir(corpus)
                  if name.startswith("suite-") and os.path.isdir(os.path.join(corpus, name)))


def main(argv=None):
    parser = argparse.ArgumentParser(prog="guided_corpus")
    commands = parser.add_subparsers(dest="command", required=True)
    order_command = commands.add_parser("order")
    order_command.add_argument("guided")
    order_command.add_argument("suite")
    order_command.add_argument("--corpus", default=CORPUS)
    order_command.add_argument("--out")
    order_command.add_argument("--schemata", help="the build's core/schemata_mutants.json: learn from the half of "
                               "its generated mutants the comparison leaves out")
    order_command.add_argument("--equivalents")
    order_command.add_argument("--jobs", type=int, default=1)
    order_command.add_argument("--candidates", type=int, default=0, help="with --schemata and --moqsim: this many "
                               "fresh generated cases compete with the corpus, and those the cover takes join it")
    order_command.add_argument("--moqsim", help="the build's moqsim, which writes the candidates")
    check_command = commands.add_parser("check")
    check_command.add_argument("suites", nargs="*")
    check_command.add_argument("--corpus", default=CORPUS)
    seeds_command = commands.add_parser("seeds")
    seeds_command.add_argument("suite")
    seeds_command.add_argument("out")
    seeds_command.add_argument("--corpus", default=CORPUS)
    args = parser.parse_args(argv)
    try:
        if not os.path.isdir(args.corpus):
            raise UsageError(f"{args.corpus} is not a folder")
        if args.command == "order":
            if not os.access(args.guided, os.X_OK):
                raise UsageError(f"{args.guided} is not a program")
            names = inputs_of(args.corpus, args.suite)
            features = reached_features(args.guided, args.suite, os.path.join(args.corpus, f"suite-{args.suite}"))
            if missing := sorted(set(names) - set(features)):
                raise UsageError(f"libFuzzer's merge ran no features for {missing[0]}")
            features = {name: features[name] for name in names}
            out = args.out or order_path(args.corpus, args.suite)
            rounds = cover_rounds(features)
            said = (f"{len(names)} inputs in {len(rounds)} rounds, the first {len(rounds[0]) if rounds else 0} "
                    f"reach all {len(set().union(*features.values()))} features")
            order = [name for round_names in rounds for name in round_names]
            if args.schemata:
                table = generated_mutants(args.schemata, args.equivalents, with_kio=True)
                mutants = sorted(mutant for mutant, suite in table.items()
                                 if suite == args.suite and learned_from(mutant))
                if len(mutants) < OWN_MUTANTS_ENOUGH:
                    mutants += sorted(mutant for mutant, suite in table.items()
                                      if suite == EVERY_SUITE and learned_from(mutant))
                with tempfile.TemporaryDirectory() as scratch:
                    candidates = []
                    if args.candidates:
                        if not args.moqsim or not os.access(args.moqsim, os.X_OK):
                            raise UsageError("--candidates needs --moqsim, the build's moqsim")
                        candidates = candidate_inputs(args.moqsim, args.suite, args.candidates, scratch)
                        refused = failing_inputs(args.guided, args.suite, candidates, "")
                        if refused:  # the tree as it is fails them: a case for moqsim replay, not a seed
                            print(f"guided corpus {args.suite}: {len(refused)} candidates fail with no mutant: "
                                  + ", ".join(sorted(refused)), file=sys.stderr)
                        candidates = [path for path in candidates if os.path.basename(path) not in refused]
                    order, kill_round_list, failed, taken = learned_order(
                        args.guided, args.suite, args.corpus, names, features, mutants, max(1, args.jobs), candidates)
                said += (f"; of {len(mutants)} mutants learned from, {len(failed)} fail an input, all of them "
                         f"the first {len(kill_round_list[0]) if kill_round_list else 0}")
                if args.candidates:
                    said += f"; {len(taken)} of {args.candidates} candidates taken into the corpus"
            write_atomically(out, "".join(f"{name}\n" for name in order))
            print(f"guided corpus {args.suite}: {said} ({out})")
        elif args.command == "check":
            suites = args.suites or all_suites(args.corpus)
            stale = check(args.corpus, suites)
            for suite, why in stale:
                print(f"guided corpus {suite}: {why} (python3 -m moqtools.guided_corpus order GUIDED {suite})",
                      file=sys.stderr)
            print(f"guided corpus: {len(suites)} orders, {len(stale)} stale")
            return 1 if stale else 0
        else:
            write_atomically(args.out, ",".join(seed_list(args.corpus, args.suite)))
    except (UsageError, OSError) as error:
        print(f"guided_corpus: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
