#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs what is missing, idempotently: Open MPI and MPICH from Debian's packages (as root),
# and the Python package in .venv. Called by `make demo` and `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."

need_pkgs=()
command -v mpicc.openmpi >/dev/null 2>&1 || need_pkgs+=(openmpi-bin libopenmpi-dev)
command -v mpicc.mpich >/dev/null 2>&1 || need_pkgs+=(mpich libmpich-dev)
command -v cmake >/dev/null 2>&1 || need_pkgs+=(cmake)
command -v cc >/dev/null 2>&1 || need_pkgs+=(gcc)
if [ "${MM_WITH_CHROMIUM:-0}" = 1 ] && ! command -v chromium >/dev/null 2>&1; then
  need_pkgs+=(chromium)
fi
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || need_pkgs+=(python3-venv)
if [ ${#need_pkgs[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing ${need_pkgs[*]} from Debian's packages"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${need_pkgs[@]}" >/dev/null
  else
    echo "setup: missing ${need_pkgs[*]}; install them (as root: apt-get install ${need_pkgs[*]})" >&2
    command -v mpicc.openmpi >/dev/null 2>&1 || command -v mpicc.mpich >/dev/null 2>&1 || exit 1
  fi
fi

# SimGrid (the simulated clusters of `make simulate`): optional, so a failed install only
# means that the simulation tests are skipped (they say why).
if [ "${MM_WITH_SIMGRID:-0}" = 1 ] && ! command -v smpicc >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing libsimgrid-dev from Debian's packages"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libsimgrid-dev >/dev/null 2>&1 ||
      { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libsimgrid-dev >/dev/null 2>&1; } ||
      echo "setup: could not install libsimgrid-dev: the SimGrid tests will be skipped" >&2
  else
    echo "setup: libsimgrid-dev is missing (not root): the SimGrid tests will be skipped" >&2
  fi
fi

# PAPI (hardware counters for --papi; papi-tools gives papi_avail, PAPI's own availability check,
# which the counters' tests compare with): built in when found, so every machine that runs the
# set-up builds the same way; a failed install only means a build without PAPI (--papi then says so).
# The two packages are said apart: CMake builds with PAPI whenever papi.h and libpapi are there
# (CMakeLists.txt), so a missing papi-tools alone costs the tests' comparison, not the counters.
papi_pkgs=()
[ -f /usr/include/papi.h ] || papi_pkgs+=(libpapi-dev)
command -v papi_avail >/dev/null 2>&1 || papi_pkgs+=(papi-tools)
if [ ${#papi_pkgs[@]} -gt 0 ]; then
  if [ -f /usr/include/papi.h ]; then
    papi_cost="the PAPI tests that compare with papi_avail are skipped"
  else
    papi_cost="mpimeter-bench is built without PAPI"
  fi
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing ${papi_pkgs[*]} from Debian's packages"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${papi_pkgs[@]}" >/dev/null 2>&1 ||
      { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${papi_pkgs[@]}" >/dev/null 2>&1; } ||
      echo "setup: could not install ${papi_pkgs[*]}: $papi_cost" >&2
  else
    echo "setup: ${papi_pkgs[*]} missing (not root): $papi_cost (as root: apt-get install ${papi_pkgs[*]})" >&2
  fi
fi

# The Python half: a venv with the package (editable) at the versions of python/constraints.txt.
# `make demo` installs what the package needs only; `make test` (MM_WITH_TESTS=1) adds the test
# tools and ReFrame (the optional extra that mpimeter.reframe_checks needs; its test is there).
extras=
stamp=.venv/.mpimeter-installed
if [ "${MM_WITH_TESTS:-0}" = 1 ]; then
  extras='[test,reframe]'
  stamp=.venv/.mpimeter-installed-tests
fi
# A venv cannot move (its scripts name its interpreter by path, the editable install the sources):
# one made for another checkout (this one moved or copied with its .venv) would run that one's
# code. Refused unless .venv is a link (a venv shared on purpose). The stamps name the checkout.
for made in .venv/.mpimeter-installed .venv/.mpimeter-installed-tests; do
  made_for=$(head -n 1 "$made" 2>/dev/null || true)
  if [ -n "$made_for" ] && [ ! -L .venv ] && ! [ "$made_for" -ef . ]; then
    echo "setup: .venv was made for the checkout in $made_for, not this one (moved or copied?), and" \
         "would run that one's code: delete it (rm -rf .venv) and run make again" >&2
    exit 2
  fi
done
# A .venv without pip is made again (which adds pip): Debian's `python3 -m venv` without
# python3-venv stops after bin/python, and the next run would fail on .venv/bin/pip. So is one
# whose interpreter is gone (a Python upgrade): its package is then installed again, as the new
# interpreter has none (the stamps said it was there).
if [ ! -x .venv/bin/python ] || [ ! -x .venv/bin/pip ]; then
  python3 -m venv .venv
  rm -f .venv/.mpimeter-installed .venv/.mpimeter-installed-tests
fi
if [ ! -f "$stamp" ] || [ python/pyproject.toml -nt "$stamp" ] || [ python/constraints.txt -nt "$stamp" ]; then
  # A line before and after: the first install downloads numpy, pandas, scipy, ... for minutes.
  echo "setup: installing the Python package${extras:+ with $extras} into .venv with pip" \
       "(a few minutes the first time)"
  pip_started=$SECONDS
  .venv/bin/pip install -q --upgrade pip >/dev/null
  .venv/bin/pip install -q -c python/constraints.txt -e "python$extras"
  printf '%s\n' "$PWD" >"$stamp"
  echo "setup: installed the Python package into .venv in $((SECONDS - pip_started)) s"
fi
