# shellcheck shell=bash
# Shared set-up for scripts/check, scripts/sweep and .ci/run: install the Debian packages
# a job needs, configure a Meson build folder once, build it, run the Python of
# scripts/moqtools, and count test results. Source it; it defines functions and MOQ_ROOT
# and runs nothing by itself.

# The repository root, from this file's own location (scripts/lib/setup.sh).
MOQ_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

# What configuring and building needs: every script installs these, and a sweep (scripts/
# sweep, scripts/soak) needs nothing more.
MOQ_PACKAGES=(
    g++ meson ninja-build pkg-config cmake python3
    librapidcheck-dev doctest-dev nlohmann-json3-dev libboost-context-dev libxxhash-dev libcli11-dev
    # The fanout bench (Google Benchmark).
    libbenchmark-dev
)

# What each other job needs besides, named by the scripts that run it
# (moq_install_packages "${MOQ_..._PACKAGES[@]}").
# shellcheck disable=SC2034  # used by the scripts that source this file
{
    # scripts/mutate's generator (moqtools/mutants.py) parses the core with libclang, and
    # --changed reads the repository with git.
    MOQ_MUTANT_PACKAGES=(python3-clang-14 libclang1-14 git)
    # The report pages (scripts/report): the viewer from npm, and headless Chromium driven
    # by Selenium through chromium-driver to check and photograph them.
    MOQ_REPORT_PACKAGES=(nodejs npm chromium chromium-driver python3-selenium)
    # scripts/bench: callgrind, and for --base (a worktree of the other revision) git and
    # Google Benchmark's compare.py, which needs scipy.
    MOQ_BENCH_PACKAGES=(valgrind git libbenchmark-tools python3-scipy python3-numpy)
    # scripts/coverage.
    MOQ_COVERAGE_PACKAGES=(gcovr)
    # scripts/check: every job's packages, the tests of moqtools (pytest), the manifests'
    # reader (python3-yaml) and the format check of the changed C++ files.
    MOQ_TEST_PACKAGES=("${MOQ_MUTANT_PACKAGES[@]}" "${MOQ_REPORT_PACKAGES[@]}" "${MOQ_BENCH_PACKAGES[@]}"
        "${MOQ_COVERAGE_PACKAGES[@]}" python3-pytest python3-yaml clang-format-14)
}

# moq_install_packages [PACKAGE...]: install whichever of MOQ_PACKAGES and the PACKAGEs a
# script needs besides (one of the lists above; scripts/fuzz: clang) is missing (apt-get,
# as root).
# Quiet when nothing is missing. When not root and something is missing: a one-line
# error naming the packages, exit 2.
# MOQ_EXTRA_PACKAGES (space-separated) adds packages to the list. It exists to test the
# install path on a machine that already has everything (e.g. MOQ_EXTRA_PACKAGES=hello);
# it is harmless otherwise.
moq_install_packages() {
    local -a wanted=("${MOQ_PACKAGES[@]}" "$@") extra=() missing=()
    local pkg status log provided
    if [[ -n ${MOQ_EXTRA_PACKAGES:-} ]]; then
        read -r -a extra <<<"$MOQ_EXTRA_PACKAGES"
        wanted+=("${extra[@]}")
    fi
    if ! command -v dpkg-query >/dev/null 2>&1; then
        echo "moqsim: dpkg-query not found (not Debian?); not checking packages: ${wanted[*]}" >&2
        return 0
    fi
    # Names the installed packages provide stand in for a package of that name (a Node.js
    # build that bundles npm provides npm, and conflicts with Debian's npm package).
    # shellcheck disable=SC2016  # ${...} are dpkg-query's fields, not shell variables
    provided="$(dpkg-query -W -f='${db:Status-Abbrev}|${Provides}\n' 2>/dev/null |
        sed -n 's/^ii *|//p' | tr ',' '\n' | sed 's/([^)]*)//; s/^ *//; s/ *$//')"
    for pkg in "${wanted[@]}"; do
        # shellcheck disable=SC2016  # ${Status} is dpkg-query's field, not a shell variable
        status="$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)"
        [[ $status == *" ok installed" ]] || grep -qxF "$pkg" <<<"$provided" || missing+=("$pkg")
    done
    ((${#missing[@]} == 0)) && return 0

    if [[ $(id -u) -ne 0 ]]; then
        echo "moqsim: missing Debian packages: ${missing[*]} (run as root, or: sudo apt-get install ${missing[*]})" >&2
        exit 2
    fi
    echo "moqsim: installing missing Debian packages: ${missing[*]}"
    log="$(mktemp)"
    if ! { apt-get update &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"; } \
        </dev/null >"$log" 2>&1; then
        tail -n 30 "$log" >&2
        echo "moqsim: apt-get failed installing: ${missing[*]}" >&2
        rm -f "$log"
        exit 2
    fi
    rm -f "$log"
}

# moq_dir DIR: DIR as an absolute path; a relative DIR is taken from the repository root.
moq_dir() {
    if [[ $1 == /* ]]; then printf '%s\n' "$1"; else printf '%s\n' "$MOQ_ROOT/$1"; fi
}

# moq_configure DIR [meson args...]: `meson setup DIR args` unless DIR is configured
# already (has build.ninja); then nothing, even if the args differ.
moq_configure() {
    local dir
    dir="$(moq_dir "$1")"
    shift
    [[ -f $dir/build.ninja ]] && return 0
    if [[ -f $dir/meson-private/coredata.dat ]]; then
        # A set-up that stopped half-way: start that folder again.
        (cd "$MOQ_ROOT" && meson setup --wipe "$dir" "$@")
    else
        (cd "$MOQ_ROOT" && meson setup "$dir" "$@")
    fi
}

# moq_build DIR: build everything in DIR (ninja's default job count).
moq_build() {
    ninja -C "$(moq_dir "$1")"
}

# moq_python3 ARGS...: Debian's python3, the one whose modules the Debian packages above
# install (another python3 may come first on PATH), with scripts/moqtools importable.
moq_python3() {
    local python=python3
    [[ -x /usr/bin/python3 ]] && python=/usr/bin/python3
    PYTHONPATH="$MOQ_ROOT/scripts${PYTHONPATH:+:$PYTHONPATH}" "$python" "$@"
}

# moq_python MODULE ARGS...: runs moqtools.MODULE (scripts/moqtools/MODULE.py).
moq_python() {
    moq_python3 -m "moqtools.$1" "${@:2}"
}

# Counts test results (moqtools/counts.py): prints "PASSED FAILED".
#   moq_count_testlog FILE         FILE is Meson's testlog.json.
#   moq_count_output STATUS FILE   FILE is one test program's output, STATUS its exit code.
moq_count_testlog() {
    moq_python counts testlog "$1"
}

moq_count_output() {
    moq_python counts output "$1" "$2"
}

# moq_build_quietly DIR [TARGET...]: builds like moq_build, printing the build's output
# only when it fails (so a long script stays readable and a failure still says why).
# MOQ_BUILD_JOBS, if set, caps ninja's parallel jobs (a machine shared with other work).
moq_build_quietly() {
    local dir log
    dir=$(moq_dir "$1")
    shift
    log=$(mktemp)
    if ! ninja -C "$dir" ${MOQ_BUILD_JOBS:+-j "$MOQ_BUILD_JOBS"} "$@" >"$log" 2>&1; then
        cat "$log" >&2
        rm -f "$log"
        echo "moqsim: the build in $dir failed" >&2
        return 1
    fi
    rm -f "$log"
}

# moq_report_viewer: installs the mutation report viewer (npm's mutation-testing-elements,
# the version scripts/lib/viewer/package-lock.json pins) into build-reports/ unless it is
# there already, and prints the path of its browser bundle. Needs the npm registry the
# first time only. A failure: the reason on stderr, status 1.
moq_report_viewer() {
    local bundle="$MOQ_ROOT/build-reports/node_modules/mutation-testing-elements/dist/mutation-test-elements.js"
    moq_npm_install "$MOQ_ROOT/scripts/lib/viewer" "$MOQ_ROOT/build-reports" "$bundle" "the report viewer" &&
        printf '%s\n' "$bundle"
}

# moq_manifest_validator: installs the Kubernetes schema validator (deploy/validator/,
# npm's kubernetes-models at the version its lock file pins) into build-deploy/ unless it
# is there already, and prints the folder to run `node validate.mjs` in.
moq_manifest_validator() {
    local cache="$MOQ_ROOT/build-deploy"
    moq_npm_install "$MOQ_ROOT/deploy/validator" "$cache" "$cache/node_modules/kubernetes-models/package.json" \
        "the manifest validator" && cp "$MOQ_ROOT/deploy/validator/validate.mjs" "$cache/" && printf '%s\n' "$cache"
}

# moq_npm_install PINNED CACHE FILE LABEL: `npm ci` of PINNED's package.json and lock file
# in the folder CACHE, unless FILE is there and CACHE's lock file is PINNED's. A failure
# prints npm's last lines and "could not install LABEL", and returns 1.
moq_npm_install() {
    local pinned=$1 cache=$2 wanted=$3 label=$4 log
    if [[ ! -f $wanted ]] || ! cmp -s "$pinned/package-lock.json" "$cache/package-lock.json"; then
        mkdir -p "$cache"
        cp "$pinned/package.json" "$pinned/package-lock.json" "$cache/"
        log=$(mktemp)
        if ! (cd "$cache" && npm ci --engine-strict --ignore-scripts --no-audit --no-fund) >"$log" 2>&1 || [[ ! -f $wanted ]]; then
            tail -n 20 "$log" >&2
            rm -f "$log" "$cache/package-lock.json"
            echo "moqsim: could not install $label (npm ci in ${cache#"$MOQ_ROOT"/}/)" >&2
            return 1
        fi
        rm -f "$log"
    fi
}
