#!/usr/bin/env bash
# Tests of the moqsim program as a user meets it: exit statuses, one-line errors, files
# written whole or not at all, replays that reproduce, shards that add up.
# Usage: cli_test.sh PATH/TO/moqsim. Ends with "cli: N passed, M failed".
set -uo pipefail

moqsim=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0

check() {  # check NAME CONDITION-COMMAND...
    local name=$1
    shift
    if "$@"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAILED: $name" >&2
    fi
}

# run_status EXPECTED ARGS...: runs moqsim, keeps stdout/stderr in $work, compares the status.
run_status() {
    local expected=$1
    shift
    "$moqsim" "$@" >"$work/out" 2>"$work/err"
    local status=$?
    [[ $status == "$expected" ]] || { echo "  moqsim $* exited $status, wanted $expected: $(head -c 300 "$work/err")" >&2; return 1; }
}
# one_error_line: stderr is exactly one line starting with "moqsim: ".
one_error_line() { [[ $(wc -l <"$work/err") == 1 ]] && grep -q '^moqsim: ' "$work/err"; }
usage_error() { run_status 2 "$@" && one_error_line; }

# The help: moqsim --help lists every command; moqsim COMMAND --help gives that command's
# options (each one the command reads, with its default where it has one), exit 0.
check "moqsim --help lists every command" bash -c "'$moqsim' --help >'$work/help' &&
    for command in sweep replay explore corpus convert merge list shard trace-diff; do
        grep -qE \"^  \$command +\" '$work/help' || exit 1; done"
for command in sweep replay explore corpus convert merge list shard trace-diff; do
    check "moqsim $command --help gives its usage and options" bash -c "'$moqsim' $command --help >'$work/help' &&
        grep -q '^Usage: moqsim $command' '$work/help' && grep -q -- '-h,--help' '$work/help'"
done
check "sweep --help names each option with its default" bash -c "'$moqsim' sweep --help >'$work/help' &&
    for option in suite seeds cases strategy mix mutant json duration resume max-failures shrink-seconds recheck ops \
        case-timeout keep-going shrink; do grep -qE -- \"^  --\$option( |\\\$)\" '$work/help' || exit 1; done &&
    grep -q '(default random)' '$work/help' && grep -q '(default 100; all are bucketed)' '$work/help'"
check "sweep --help names the environment it reads" bash -c "'$moqsim' sweep --help >'$work/help' &&
    grep -q MOQ_SEED '$work/help' && grep -q GTEST_TOTAL_SHARDS '$work/help' && grep -q SLURM_ARRAY_TASK_ID '$work/help'"
check "explore --help names the shard variables" bash -c "'$moqsim' explore --help | grep -q JOB_COMPLETION_INDEX"
check "a mistyped option gets a suggestion" bash -c "'$moqsim' replay --sed 1 2>&1 >/dev/null | grep -q 'did you mean --seed?'"

check "no command" usage_error
check "unknown command" usage_error frobnicate
check "unknown suite" usage_error sweep --suite nosuch --cases 1
check "unknown strategy" usage_error sweep --suite resume --cases 1 --strategy lifo
check "backwards seed range" usage_error sweep --suite resume --seeds 4-1 --cases 1
check "seed range that is not a number" usage_error sweep --suite resume --seeds one --cases 1
check "bad case count" usage_error sweep --suite resume --cases -3
check "unknown option" usage_error sweep --suite resume --cases 1 --colour
check "mutant without a mutants build or unknown" usage_error sweep --suite resume --cases 1 --mutant nosuch.site
check "replay without a case" usage_error replay --suite resume --seed 1
check "bad shard index" bash -c "GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=2 '$moqsim' sweep --suite resume --cases 1 >/dev/null 2>&1; [[ \$? == 2 ]]"

check "a bad case count of one suite stops before any suite runs" bash -c "MOQ_GROUP_CASES=bad '$moqsim' sweep --seeds 1 >'$work/fast.out' 2>'$work/fast.err'; [[ \$? == 2 && ! -s '$work/fast.out' && \$(wc -l <'$work/fast.err') == 1 ]]"
check "a folder that takes no file is refused before the run" usage_error sweep --suite resume --cases 1 --json /proc/moqsim.json

# An unwritable result file fails before the run and leaves nothing behind.
check "unwritable --json" usage_error sweep --suite resume --cases 1 --json "$work/missing/result.json"
check "nothing written for it" test ! -e "$work/missing"

# Malformed corpus files: one line naming the file, exit 2.
printf '{ not json' >"$work/bad.json"
check "corpus file that is not JSON" usage_error replay "$work/bad.json"
check "the error names the file" grep -q "bad.json" "$work/err"
printf '{"format":"moqsim-case","version":7,"suite":"resume","case":{}}' >"$work/version.json"
check "unknown corpus version" usage_error replay "$work/version.json"
printf '{"format":"moqsim-case","version":2,"suite":"nosuch","case":{}}' >"$work/suite.json"
check "corpus file of an unknown suite" usage_error replay "$work/suite.json"
printf '{"format":"moqsim-case","version":2,"suite":"resume","case":{"walk":"sideways","drive":"woken","seed":1,"steps":[]}}' >"$work/case.json"
check "corpus case with a bad field" usage_error replay "$work/case.json"
check "a bad file stops the corpus replay" usage_error corpus "$work/case.json"

# A saved case names its suite: explore and replay take it from the file.
run_status 0 replay --suite gate --seed 1 --case 3 --save "$work/saved.json"
check "a saved case replays to the digest it records" bash -c "'$moqsim' replay '$work/saved.json' |
    grep -q \"digest \$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[\"digest\"])' '$work/saved.json')\""
check "explore takes the suite from a case file" run_status 0 explore --case "$work/saved.json" --bound 0
check "explore of a case file names the file" grep -q "^explore: $work/saved.json, bound 0: exhaustive" "$work/out"

# A sweep writes its JSON result whole.
check "a small sweep passes" run_status 0 sweep --suite resume --seeds 1-2 --cases 50 --json "$work/sweep.json"
check "its result is JSON with every case" python3 -c "
import json, sys
r = json.load(open('$work/sweep.json'))
s = r['suites'][0]
sys.exit(0 if r['format'] == 'moqsim-sweep' and s['run'] == 100 and s['passed'] == 100 else 1)"

# A replay reproduces the same digest every time; --save stores a case the corpus replays.
run_status 0 replay --suite resume --seed 2 --case 12 --save "$work/kept.json" && grep digest "$work/out" >"$work/first"
run_status 0 replay "$work/kept.json" && grep digest "$work/out" >"$work/second"
check "replay from the saved file gives the same digest" cmp -s "$work/first" "$work/second"
check "the corpus replay passes the saved case" run_status 0 corpus "$work/kept.json"
check "a trace is written as JSON lines" bash -c "'$moqsim' replay --suite resume --seed 2 --case 12 --trace '$work/trace.jsonl' >/dev/null &&
    head -n 1 '$work/trace.jsonl' | grep -q '\"event\":\"seed\",\"schema\":3'"
# Every line is one JSON object with a step, a virtual time and an event; the trace holds
# the driver's operations, the reader's answers, its gate's answers and the verdicts.
check "every trace line is a JSON object with step, time and event" python3 -c "
import json, sys
lines = open(sys.argv[1]).read().splitlines()
events = [json.loads(line) for line in lines]
assert events and all({'step', 'time', 'event'} <= set(e) for e in events)
kinds = {e['event'] for e in events}
assert {'operation', 'answer', 'gate', 'verdict', 'end'} <= kinds, kinds
assert any(e['event'] == 'answer' and e['read'] == 'group' and e['answer'] == 'item' for e in events)
" "$work/trace.jsonl"
# The fanout suite's trace: the driver's and the publisher's operations, each viewer's
# answers (groups with their sequence and source, frames with their bytes), gates, verdicts.
# Case 43 runs on the executor's own tasks (on the runtime, a worker task records them).
check "a fanout trace holds operations, answers, gates and verdicts" bash -c "'$moqsim' replay --suite fanout --seed 1 --case 43 --trace '$work/fanout.jsonl' >/dev/null && python3 -c \"
import json, sys
events = [json.loads(line) for line in open(sys.argv[1])]
ops = {(e.get('task'), e['op']) for e in events if e['event'] == 'operation'}
assert ('driver', 'allow') in ops and ('publisher', 'land') in ops, ops
assert any(e['event'] == 'answer' and e['read'] == 'group' and e['answer'] == 'item' and 'sequence' in e
           and 'source' in e and e['task'].startswith('viewer ') for e in events)
assert any(e['event'] == 'answer' and e['read'] == 'frame' and e['answer'] == 'item' and 'content' in e for e in events)
assert any(e['event'] == 'gate' and e['task'].startswith('viewer ') for e in events)
assert any(e['event'] == 'verdict' and e.get('task', '').startswith('viewer ') for e in events)
\" '$work/fanout.jsonl'"

# Two cases that differ only in a group's sequence: poke land(A,N) serve(A).
for sequence in 2 0; do
    printf '{"format":"moqsim-case","version":2,"suite":"resume","case":{"drive":"woken","seed":630761,"steps":[["poke",0,0,0],["land",0,%s,0],["serve",0,0,0]],"walk":"arrival"}}' \
        "$sequence" >"$work/land$sequence.json"
done
run_status 0 replay "$work/land2.json" --trace "$work/land2.jsonl" && grep digest "$work/out" >"$work/digest2"
run_status 0 replay "$work/land0.json" --trace "$work/land0.jsonl" && grep digest "$work/out" >"$work/digest0"
check "cases that differ only in a group's sequence give different digests" bash -c "[[ -s '$work/digest2' && -s '$work/digest0' ]] && ! cmp -s '$work/digest2' '$work/digest0'"
# trace-diff: the first event where they part is the land's operation, then exit 1.
check "trace-diff of two different runs exits 1" run_status 1 trace-diff "$work/land2.jsonl" "$work/land0.jsonl"
check "trace-diff names the land as the first event where the runs part" python3 -c "
import json, sys
out = open(sys.argv[1]).read().splitlines()
a = json.loads(next(l for l in out if l.startswith('A ')).split(None, 2)[2])
b = json.loads(next(l for l in out if l.startswith('B ')).split(None, 2)[2])
assert a['event'] == b['event'] == 'operation' and a['op'] == b['op'] == 'land', (a, b)
assert a['args'][1] == 2 and b['args'][1] == 0, (a, b)
lines = open(sys.argv[2]).read().splitlines()
index = int(out[0].split('event ')[1].split()[0])
assert json.loads(lines[index]) == a, (index, a)
assert all(l == m for l, m in zip(lines[:index], open(sys.argv[3]).read().splitlines()[:index]))
" "$work/out" "$work/land2.jsonl" "$work/land0.jsonl"
check "trace-diff of a trace and itself exits 0" run_status 0 trace-diff "$work/land2.jsonl" "$work/land2.jsonl"
head -n 5 "$work/land2.jsonl" >"$work/short.jsonl"
check "trace-diff of a trace and its start says where one ends" bash -c "'$moqsim' trace-diff '$work/short.jsonl' '$work/land2.jsonl' >'$work/short.out'; [[ \$? == 1 ]] && grep -q 'A ends here' '$work/short.out'"
check "trace-diff of a missing trace is bad input" usage_error trace-diff "$work/land2.jsonl" "$work/gone.jsonl"

# The text log: the same events as the JSON lines, in aligned columns.
check "--trace - on a pipe writes JSON lines" bash -c "'$moqsim' replay '$work/land2.json' --trace - 2>/dev/null | cmp -s - '$work/land2.jsonl'"
check "--trace-format text writes the same events in aligned columns" bash -c "'$moqsim' replay '$work/land2.json' --trace - --trace-format text 2>/dev/null >'$work/land2.txt' && python3 -c \"
import json, sys
text = open(sys.argv[1]).read().splitlines()
events = [json.loads(line) for line in open(sys.argv[2])]
header, rows = text[0], text[1:]
assert len(rows) == len(events), (len(rows), len(events))
task_at, event_at, details_at = header.index('task'), header.index('event'), header.index('details')
for row, event in zip(rows, events):
    # Every column starts where its header does: time and step right-aligned before it.
    assert row[task_at - 2:task_at] == '  ' and row[task_at] != ' ', row
    assert row[event_at:].split()[0] == event['event'] and row[event_at - 1] == ' ', row
    assert row[task_at:event_at].strip() == event.get('task', '-'), row
    assert int(row[:task_at].split()[1]) == event['step'], row
land = [r for r, e in zip(rows, events) if e['event'] == 'operation' and e['op'] == 'land']
assert land and 'land(A,2)' in land[0][details_at:], land
taken = [r[details_at:] for r, e in zip(rows, events) if e['event'] == 'answer' and e['answer'] == 'item']
assert any(t.startswith('group item sequence 2 source ') for t in taken), taken
\" '$work/land2.txt' '$work/land2.jsonl'"
check "--trace - on a terminal writes the text log" python3 -c "
import os, pty, subprocess, sys
main, terminal = pty.openpty()
run = subprocess.run([sys.argv[1], 'replay', sys.argv[2], '--trace', '-'], stdout=terminal, stderr=subprocess.DEVNULL)
os.close(terminal)
out = b''
while True:
    try:
        chunk = os.read(main, 65536)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
assert run.returncode == 0 and out.lstrip().startswith(b'time (s)'), out[:200]
" "$moqsim" "$work/land2.json"
check "--trace-format without --trace is bad input" usage_error replay "$work/land2.json" --trace-format text
check "an unknown trace format is bad input" usage_error replay "$work/land2.json" --trace - --trace-format yaml

# Shards split the (seed, case) pairs; merged, they add up to the whole sweep.
for index in 0 1 2; do
    GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=$index "$moqsim" sweep --suite track --seeds 1-2 --cases 40 \
        --json "$work/shard$index.json" >/dev/null 2>&1
done
check "three shards merge to the whole sweep" bash -c "'$moqsim' merge '$work'/shard0.json '$work'/shard1.json '$work'/shard2.json \
    --json '$work/merged.json' | grep -q '^track: 80 passed, 0 failed (80 cases from 3 shards)'"
check "a shard merged twice is refused" usage_error merge "$work/shard0.json" "$work/shard0.json"
check "a merge with a shard missing is refused and writes nothing" usage_error merge "$work/shard0.json" "$work/shard1.json" --json "$work/partial.json"
check "nothing written for it" test ! -e "$work/partial.json"
printf '{"format":"moqsim-sweep","version":1}' >"$work/hollow.json"
check "a sweep result without its fields is refused" usage_error merge "$work/hollow.json"
printf '{"format":1}' >"$work/typed.json"
check "a corpus file with a field of the wrong type is refused" usage_error replay "$work/typed.json"

# The operation mix: part of a case's identity.
check "unknown mix" usage_error sweep --suite group --cases 1 --mix wild
check "a corpus replay takes no --mix" usage_error replay "$work/kept.json" --mix swarm
run_status 0 replay --suite group --seed 3 --case 40 --mix swarm && grep digest "$work/out" >"$work/swarm1"
run_status 0 replay --suite group --seed 3 --case 40 --mix swarm && grep digest "$work/out" >"$work/swarm2"
run_status 0 replay --suite group --seed 3 --case 40 && grep digest "$work/out" >"$work/fixed1"
check "a swarm case replays with the same digest" cmp -s "$work/swarm1" "$work/swarm2"
check "the swarm draws another case than the fixed mix" bash -c "! cmp -s '$work/swarm1' '$work/fixed1'"
GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=2 "$moqsim" sweep --suite track --seeds 1-2 --cases 40 --mix swarm \
    --json "$work/swarm_shard2.json" >/dev/null 2>&1
check "shards of different mixes are refused" usage_error merge "$work/shard0.json" "$work/shard1.json" "$work/swarm_shard2.json"
check "the sweep result records its mix" python3 -c "
import json, sys; sys.exit(json.load(open('$work/swarm_shard2.json'))['mix'] != 'swarm')"

check "list names the suites and the mutation sites" bash -c "'$moqsim' list | grep -q '^  resume' &&
    '$moqsim' list --sites | grep -q 'resume.route.register'"
check "list --suites alone: each suite of the table, one name a line, nothing else" bash -c "
    diff <('$moqsim' list --suites) <('$moqsim' list | sed -n 's/^  \([a-z]*\) .* cases by default .*/\1/p') &&
    [[ \$('$moqsim' list --suites | wc -l) -ge 6 ]]"

# moqsim shard: the share the environment names, by the rules sweep uses (the scripts ask it).
check "shard with no engine's variables is one of one" bash -c "[[ \$('$moqsim' shard) == 'shard 0 of 1' ]]"
check "shard names a GoogleTest-style shard" bash -c \
    "[[ \$(GTEST_TOTAL_SHARDS=4 GTEST_SHARD_INDEX=3 '$moqsim' shard) == 'shard 3 of 4' ]]"
check "shard --json counts a Slurm array from its minimum in its steps, and names every variable" python3 -c "
import json, os, subprocess, sys
env = dict(os.environ, SLURM_ARRAY_TASK_ID='11', SLURM_ARRAY_TASK_MIN='3', SLURM_ARRAY_TASK_STEP='4',
           SLURM_ARRAY_TASK_COUNT='3')
answer = json.loads(subprocess.run(['$moqsim', 'shard', '--json'], env=env, capture_output=True, check=True).stdout)
sys.exit(not (answer['index'] == 2 and answer['total'] == 3 and
              {'GTEST_SHARD_INDEX', 'JOB_COMPLETION_INDEX', 'SLURM_ARRAY_TASK_STEP'} <= set(answer['variables'])))"
check "shard refuses an index past the count in one line" bash -c \
    "JOB_COMPLETION_INDEX=8 MOQSIM_SHARD_COUNT=8 '$moqsim' shard >'$work/out' 2>'$work/err'; [[ \$? == 2 && ! -s '$work/out' ]] &&
    [[ \$(cat '$work/err') == 'moqsim: JOB_COMPLETION_INDEX 8 is out of range: MOQSIM_SHARD_COUNT is 8 (indices 0 to 7)' ]]"
check "shard refuses engines that disagree" bash -c \
    "GTEST_TOTAL_SHARDS=4 GTEST_SHARD_INDEX=1 JOB_COMPLETION_INDEX=1 MOQSIM_SHARD_COUNT=8 '$moqsim' shard 2>&1 >/dev/null |
    grep -qx 'moqsim: GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS say shard 1 of 4 but JOB_COMPLETION_INDEX/MOQSIM_SHARD_COUNT say 1 of 8'"
check "shard takes no argument" usage_error shard everything
check "shard tells the runner it understood sharding" bash -c \
    "GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=1 GTEST_SHARD_STATUS_FILE='$work/shard-status' '$moqsim' shard >/dev/null &&
    [[ -e '$work/shard-status' ]]"

# What scripts read: the suite names alone, one a line; and the command tables as data.
"$moqsim" list --suites >"$work/suite_names"
"$moqsim" list --suites --json >"$work/suite_tables.json"
check "list --suites prints the suite names alone, one a line" python3 -c "
import sys; names = open('$work/suite_names').read().split(chr(10))
sys.exit(names[-1] != '' or 'resume' not in names or not all(name.isidentifier() for name in names[:-1]))"
check "list --suites --json prints each suite's command table" python3 -c "
import json, sys
suites = json.load(open('$work/suite_tables.json'))['suites']
names = open('$work/suite_names').read().split()
ok = [suite['name'] for suite in suites] == names and all(suite['default_cases'] > 0 and suite['operations'] and
      all(op['weight'] > 0 for op in suite['operations']) for suite in suites)
resume = next(suite for suite in suites if suite['name'] == 'resume')
land = next(op for op in resume['operations'] if op['name'] == 'land')
ok = ok and land['arguments'] == [{'name': 'copy', 'low': 0, 'high': 3}, {'name': 'sequence', 'low': 0, 'high': 12}]
sys.exit(not ok)"
check "list --json is --suites --json" bash -c "'$moqsim' list --json | cmp -s - '$work/suite_tables.json'"

# Site hits: only a mutants build counts; elsewhere --site-hits is refused before the run.
# (The listing is read whole first: grep -q would stop reading and fail the pipe.)
if grep -q 'cannot switch them off' <<<"$("$moqsim" list --sites)"; then
    check "--site-hits without a mutants build" usage_error sweep --suite resume --cases 1 --site-hits "$work/hits.json"
    check "nothing written for it" test ! -e "$work/hits.json"
else
    check "--site-hits to a folder that is missing is refused before the run" \
        usage_error sweep --suite resume --cases 1 --site-hits "$work/missing/hits.json"
    run_status 0 sweep --suite waiter,resume --seeds 1 --cases 200 --site-hits "$work/hits.json"
    check "--site-hits counts each suite's own evaluations" python3 -c "
import json, sys
r = json.load(open('$work/hits.json'))
waiter, resume = r['suites']
names = {s['name'] for s in r['sites']}
ok = (r['format'] == 'moqsim-site-hits' and waiter['suite'] == 'waiter' and resume['run'] == 200
      and set(resume['evaluations']) == names and resume['evaluations']['resume.route.register'] > 0
      and waiter['evaluations']['resume.route.register'] == 0)
sys.exit(0 if ok else 1)"
fi

# The small cases (--ops): the sweep's totals agree with list --small-cases, and a case's
# replay is the case the listing gives at that index.
run_status 0 sweep --suite resume,gate --ops 2 --json "$work/small.json"
check "sweep --ops 2 runs every resume case but the symmetric ones" python3 -c "
import json, sys
resume, gate = json.load(open('$work/small.json'))['suites']
ok = (resume['enumerated'] == 15136 and resume['symmetric'] == 6608 and resume['run'] == 8528
      and resume['failed'] == 0 and gate['run'] == gate['enumerated'] == 1320)
sys.exit(0 if ok else 1)"
check "list --small-cases counts what the sweep ran" bash -c "'$moqsim' list --small-cases --suite resume --ops 2 |
    grep -qx 'resume   --ops 2: 15136 cases, 6608 symmetric, 8528 to run'"
"$moqsim" list --small-cases --suite gate --ops 2 --json >"$work/small_cases.json"
run_status 0 replay --suite gate --ops 2 --case 321 --seed 0
check "replay --ops --case runs the case the listing has at that index" python3 -c "
import json, sys
listed = {c['index']: c['case'] for c in json.load(open('$work/small_cases.json'))['cases']}
steps = ' '.join(s[0] + ('(' + str(s[1]) + ')' if s[0] in ('write', 'quiet', 'target') else '') for s in listed[321]['steps'])
out = open('$work/out').read()
sys.exit(0 if 'small case 321 of --ops 2, seed 0' in out and steps in out else 1)"
check "a small sweep refuses --shrink" usage_error sweep --suite gate --ops 2 --shrink

echo "cli: $passed passed, $failed failed"
((failed == 0))
