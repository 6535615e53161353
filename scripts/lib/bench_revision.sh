# shellcheck shell=bash
# Another revision's benchmarks for `scripts/bench --base REV`: resolve REV, check it out
# in a git worktree of its own and build its benches in a release build folder of its
# own (.bench-base/ is ignored by git):
#   .bench-base/SHORT-SHA/              the revision, a detached worktree registered with git
#   .bench-base/SHORT-SHA/build-bench/  its release build (the bench targets only)
# Both are kept and reused by the next run for the same commit. To remove them:
# `git worktree remove --force .bench-base/SHORT-SHA`, or delete .bench-base/ and run
# `git worktree prune`, which then drops the registrations whose folder is gone.
# Source it after lib/setup.sh; it defines functions and runs nothing by itself.

# bench_resolve REV: the full commit id REV names, or nothing (status 1) if none.
bench_resolve() {
    [[ -n $1 && $1 != -* ]] || return 1
    git -C "$MOQ_ROOT" rev-parse --verify --quiet "$1^{commit}"
}

# bench_base_folder SHA: .bench-base/SHORT-SHA as an absolute path without symlinks, as
# `git worktree list` spells it.
bench_base_folder() {
    printf '%s/.bench-base/%s\n' "$(cd "$MOQ_ROOT" && pwd -P)" "${1:0:12}"
}

# bench_registered_head TREE: the commit git's worktree list records for TREE, if any.
bench_registered_head() {
    git -C "$MOQ_ROOT" worktree list --porcelain |
        awk -v tree="$1" '/^worktree / { current = substr($0, 10) } $1 == "HEAD" && current == tree { print $2 }'
}

# bench_checkout SHA: make bench_base_folder's folder a registered, detached worktree at
# SHA: reused when it is one already; otherwise whatever is there (a half-made or moved
# checkout, with its build) is removed first. A failure exits 1.
bench_checkout() {
    local sha=$1 tree log
    tree="$(bench_base_folder "$sha")"
    if [[ -f $tree/.git && "$(bench_registered_head "$tree")" == "$sha" ]]; then
        return 0
    fi
    if [[ -n "$(bench_registered_head "$tree")" && -e $tree ]]; then
        git -C "$MOQ_ROOT" worktree remove --force --force "$tree" >/dev/null 2>&1 || true
    fi
    rm -rf "$tree"
    mkdir -p "$(dirname "$tree")"
    log="$(mktemp)"
    # --force: a registration whose folder is gone (deleted by hand) is taken over.
    if ! git -C "$MOQ_ROOT" worktree add --force --detach "$tree" "$sha" >"$log" 2>&1; then
        cat "$log" >&2
        rm -f "$log"
        echo "bench: could not check out ${sha:0:12} in $tree" >&2
        exit 1
    fi
    rm -f "$log"
}

# bench_build_base SHA: configure (once) and build the worktree's build-bench/, release,
# only the bench targets the revision has. Options the revision does not define are left
# out, so an older revision still configures. A failure prints the log's tail, exits 1.
bench_build_base() {
    local tree build log
    local -a options=(-Dbuildtype=release -Ddebug=true) targets
    tree="$(bench_base_folder "$1")"
    build="$tree/build-bench"
    grep -q "option('tests'" "$tree/meson_options.txt" 2>/dev/null && options+=(-Dtests=false)
    grep -q "option('bench'" "$tree/meson_options.txt" 2>/dev/null && options+=(-Dbench=true)
    log="$(mktemp)"
    if [[ ! -f $build/build.ninja ]]; then
        rm -rf "$build"
        if ! meson setup "${options[@]}" "$build" "$tree" >"$log" 2>&1; then
            tail -n 30 "$log" >&2
            rm -f "$log"
            echo "bench: configuring the base revision ${1:0:12} failed" >&2
            exit 1
        fi
    fi
    rm -f "$log"
    bench_with_debug_info "$build"
    mapfile -t targets < <(bench_targets "$build" | cut -d' ' -f2)
    ((${#targets[@]} == 0)) || moq_build_quietly "$build" "${targets[@]}" || exit 1
}

# bench_with_debug_info BUILD: turns on BUILD's debug information if a set-up made before
# the bench asked for it left it off (the per-function profile reads it).
bench_with_debug_info() {
    local debug
    debug="$(moq_python build_info option "$1" debug 2>/dev/null || echo true)"
    [[ $debug == true ]] || meson configure "$1" -Ddebug=true >/dev/null
}

# bench_targets BUILD: "NAME PATH" for each bench of BUILD's project (idle_export,
# session_fanout), PATH relative to BUILD; a bench the project does not define is left out.
bench_targets() {
    moq_python build_info executables "$1" idle_export session_fanout
}
