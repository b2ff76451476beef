# SPDX-License-Identifier: BSD-3-Clause
# mpimeter — `make demo`, `make check` and `make test` set everything up themselves (see README.md).
SHELL := /bin/bash
.DEFAULT_GOAL := demo
PY := .venv/bin/python
# One build per MPI library, named after the library (scripts/mpi-library reads its version
# string): build/openmpi, build/mpich, build/intelmpi, build/cray-mpich, ... The compilers:
# MPICC when given (one library: MPI_NAME names its folder, LAUNCHER sets its launcher template),
# else Debian's mpicc.openmpi and mpicc.mpich, else the `mpicc` on PATH (a module's MPI).
BUILD_DIR ?= build
BUILD_TARGET ?=  # one CMake target only (e.g. mpimeter-bench); empty: all, with the unit tests
JOBS ?= 2
# Recursive (=): evaluated when a recipe runs, so after `setup` has installed what was missing.
debian_mpiccs = $(strip $(if $(shell command -v mpicc.openmpi),mpicc.openmpi) $(if $(shell command -v mpicc.mpich),mpicc.mpich))
mpi_compilers = $(if $(MPICC),$(MPICC),$(or $(debian_mpiccs),$(if $(shell command -v mpicc),mpicc)))
# $(call mpi_probe,COMPILER,INDEX): the library's line (NAME, MPIEXEC, version) into
# $(BUILD_DIR)/.mpi.INDEX, or stop with its one-line message (make exits 2).
mpi_probe = $(if $(shell mkdir -p $(BUILD_DIR) && scripts/mpi-library '$(1)' '$(MPI_NAME)' >$(BUILD_DIR)/.mpi.$(2) 2>&1 || echo failed),$(error $(shell cat $(BUILD_DIR)/.mpi.$(2))))
check_build_input = $(strip \
  $(if $(and $(or $(MPI_NAME),$(LAUNCHER)),$(if $(MPICC),,x)),$(error MPI_NAME and LAUNCHER name one library: give its compiler with MPICC=...)) \
  $(if $(LAUNCHER),$(if $(and $(findstring {np},$(LAUNCHER)),$(findstring {cmd},$(LAUNCHER))),,$(error LAUNCHER='$(LAUNCHER)': a launcher template needs both {np} and {cmd}, e.g. 'srun -n {np} {cmd}' or 'mpiexec -n {np} {cmd}'))) \
  $(if $(mpi_compilers),,$(error no MPI library found: no mpicc.openmpi, mpicc.mpich or mpicc on PATH; give one with MPICC=...)) \
  $(foreach i,$(shell seq $(words $(mpi_compilers))),$(call mpi_probe,$(word $(i),$(mpi_compilers)),$(i))))

.PHONY: demo check test setup test-setup build clean test-c test-mpi test-python test-multihost build-smpi simulate test-simulate \
        test-anympi test-readme check-lint check-python test-slurm test-mpi-parallel test-mpi-serial \
        test-python-parallel test-python-serial

setup:
	@scripts/setup.sh

# MPI_LIBS is evaluated after setup (a sub-make), so a fresh machine builds both libraries.
build: setup
	@$(MAKE) --no-print-directory build-libs

# CMake configures a build again only when what it was configured with changed: the compiler,
# launcher, library version or the commit (the revision the binary reports); otherwise
# `cmake --build` alone, which re-runs CMake itself when a CMakeLists.txt or a source glob changed.
# A build configured for another checkout's sources (this one moved or copied with its build/)
# would build those and say "built": refused, unless BUILD_DIR is a link (a build shared on purpose).
.PHONY: build-libs
build-libs:
	@: $(check_build_input)
	@i=0; for cc in $(mpi_compilers); do i=$$((i+1)); \
	  { read -r lib; read -r mpiexec; read -r version; } <$(BUILD_DIR)/.mpi.$$i; \
	  dir=$(BUILD_DIR)/$$lib; \
	  home=$$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' $$dir/CMakeCache.txt 2>/dev/null); \
	  if [ -n "$$home" ] && [ ! -L $(BUILD_DIR) ] && ! [ "$$home" -ef . ]; then \
	    echo "$$dir was configured for the sources in $$home, not this checkout (moved or copied?)," \
	         "and would build those: delete it (rm -rf $$dir) and run make build again" >&2; exit 2; \
	  fi; \
	  configured="$$cc|$$mpiexec|$$lib|"'$(LAUNCHER)'"|$$version|$$(git rev-parse -q HEAD 2>/dev/null)"; \
	  if [ ! -f $$dir/CMakeCache.txt ] || [ "$$(cat $$dir.configured 2>/dev/null)" != "$$configured" ]; then \
	    rm -f $$dir.configured; \
	    cmake -S . -B $$dir -DMPI_C_COMPILER=$$cc $${mpiexec:+-DMPIEXEC_EXECUTABLE=$$mpiexec} \
	          -DMM_MPI_NAME=$$lib -DMM_LAUNCHER='$(LAUNCHER)' -DMM_WERROR=ON >$$dir.cmake.log 2>&1 || \
	      { cat $$dir.cmake.log; exit 1; }; \
	    printf '%s\n' "$$configured" >$$dir.configured; \
	  fi; \
	  cmake --build $$dir -j $(JOBS) $(if $(BUILD_TARGET),--target $(BUILD_TARGET)) >/dev/null || \
	    cmake --build $$dir -j 1 $(if $(BUILD_TARGET),--target $(BUILD_TARGET)) || exit 1; \
	  echo "built $$dir/bin/mpimeter-bench ($$version)"; \
	done

# SimGrid's SMPI (smpicc from libsimgrid-dev): mpimeter-bench for simulated clusters, beside
# the real builds (`mpimeter run --mpi smpi` runs it). SMPI_PRETEND_CC only for CMake's configure
# probes (otherwise smpicc links them as SMPI plugins, which cannot run); only the binary is built
# (the unit tests need no SMPI).
build-smpi:
	@command -v smpicc >/dev/null || { echo "smpicc not found: install libsimgrid-dev (as root: apt-get install libsimgrid-dev)"; exit 1; }
	@mkdir -p $(BUILD_DIR)
	@SMPI_PRETEND_CC=1 cmake -S . -B $(BUILD_DIR)/smpi -DCMAKE_C_COMPILER=smpicc -DMPI_C_COMPILER=smpicc \
	      -DMM_WERROR=ON >$(BUILD_DIR)/smpi.cmake.log 2>&1 || { cat $(BUILD_DIR)/smpi.cmake.log; exit 1; }
	@cmake --build $(BUILD_DIR)/smpi -j $(JOBS) --target mpimeter-bench >/dev/null || \
	  cmake --build $(BUILD_DIR)/smpi -j 1 --target mpimeter-bench || exit 1
	@echo "built $(BUILD_DIR)/smpi/bin/mpimeter-bench"

# The clock-sync study on simulated clusters up to 1024 ranks (bench/simulate.py; a few minutes).
simulate: setup
	@MM_WITH_SIMGRID=1 scripts/setup.sh
	@$(MAKE) --no-print-directory build-smpi
	@$(PY) bench/simulate.py --out bench/results/simulate.json

# pytest's workers for the Python tests that launch no MPI and the MPI tests that assert
# correctness alone (pytest-xdist; auto: one per CPU). The other MPI tests run one at a time:
# their ranks would share the cores with another test's, and the checks that need a quiet
# machine would then be skipped as busy.
TEST_JOBS ?= auto

# The test set-up: the builds, then the test tools (pytest, pytest-xdist), Chromium for the report
# tests and SimGrid for the simulation tests. Each test-* target alone sets up first; `make test`
# and `make check` set up once and tell their groups so (MM_SET_UP=1).
TEST_SETUP = $(if $(MM_SET_UP),,test-setup)
test-setup: build
	@MM_WITH_CHROMIUM=1 MM_WITH_SIMGRID=1 MM_WITH_TESTS=1 scripts/setup.sh

# scripts/run-groups NAME STAGE...: every target runs, also after one fails (a failure must not
# hide the rest), then a line per target (its seconds, passed or FAILED), then NAME fails naming
# those that did. A stage's lanes (`|`) run side by side; MM_TEST_LANES=1 runs one at a time.
run_groups = $(PY) scripts/run-groups

# `make check`: the fast tier, a few minutes - the C unit tests, the Python tests that neither
# launch MPI nor run a built program (python/tests/conftest.py marks the others and, here, fails
# one that does; `make test` runs them all), and every Python file compiled. The compile and the
# C unit tests (~10 s) run beside the Python tests rather than before them.
check: build
	@MM_WITH_TESTS=1 scripts/setup.sh
	@$(run_groups) check "check-python | check-lint test-c"

check-lint:
	@$(PY) -m compileall -q python/src python/tests c/tests tests bench examples

check-python:
	@MPIMETER_TEST_TIER=check $(PY) -m pytest -q -n $(TEST_JOBS) --dist loadgroup -m "not mpi and not bench" python/tests

# Its small case (64 ranks); skipped with the reason when libsimgrid-dev is missing.
test-simulate: $(TEST_SETUP)
	@if command -v smpicc >/dev/null; then $(MAKE) --no-print-directory build-smpi; fi
	@$(PY) -m pytest -q c/tests/simgrid

# `make test` runs every group of tests, also after one fails, then fails naming those that did,
# after the time each group took. The MPI tests that count valid repetitions or time something
# (test-mpi-serial, test-python-serial) have the machine to themselves, and so do the namespaces'
# window starts (test-multihost asserts valid repetitions), run last. The tests that assert
# correctness alone (test-*-parallel, both cores busy) run beside a lane of groups that assert no
# timing and mostly wait or use about one core: the Slurm cluster (starting, a job's time limit),
# the docs' commands (one at a time), the simulation (its time is simulated, not the machine's)
# and the plain-mpicc build (it asserts what was built and that its launches completed). The
# report tests open the HTML in headless Chromium, the simulation tests need SimGrid: the test
# set-up installs both too.
test: test-setup
	@$(run_groups) test "test-c test-mpi-parallel test-python-parallel | test-slurm test-readme test-simulate test-anympi" \
	  test-mpi-serial test-python-serial test-multihost

# Every library's unit tests run, also after one fails (a failure must not hide the rest).
test-c: $(TEST_SETUP)
	@failed=""; \
	for dir in $(BUILD_DIR)/*/; do [ -f $$dir/mpi.json ] || continue; \
	  ctest --test-dir $$dir --output-on-failure || failed="$$failed $$dir"; done; \
	if [ -n "$$failed" ]; then echo "test-c: C unit tests failed in:$$failed"; exit 1; fi

# make build against a plain mpicc/mpiexec on PATH (each library installed here in turn, the
# Debian names hidden), then a campaign through the launcher it recorded (tests/anympi/).
test-anympi: $(TEST_SETUP)
	@$(PY) -m pytest -q tests/anympi

# Every command block of README.md and of the docs/ guide pages as written (tests/readme; the
# rewrites that keep it short are in tests/readme/rewrites.txt); part of `make test`.
test-readme: $(TEST_SETUP)
	@$(PY) -m pytest -q -rs tests/readme

# $(call both_halves,GROUP): GROUP-parallel, then GROUP-serial, both also after the first fails;
# fails if either did. Set up once (MM_SET_UP) by GROUP's own prerequisites.
both_halves = @status=0; \
	$(MAKE) --no-print-directory $(1)-parallel MM_SET_UP=1 || status=1; \
	$(MAKE) --no-print-directory $(1)-serial MM_SET_UP=1 || status=1; \
	exit $$status

# The tests that assert correctness alone on TEST_JOBS workers (test-mpi-parallel), then the
# `serial` ones (timing, valid repetitions under the window process sync) one at a time
# (test-mpi-serial; c/tests/mpi/conftest.py). Both run, also after the first fails.
test-mpi: $(TEST_SETUP)
	+$(call both_halves,test-mpi)

test-mpi-parallel: $(TEST_SETUP)
	@$(PY) -m pytest -q -n $(TEST_JOBS) -m "not serial" c/tests/mpi

test-mpi-serial: $(TEST_SETUP)
	@$(PY) -m pytest -q -m serial c/tests/mpi

# The tests that launch no MPI and the MPI tests that assert correctness alone on TEST_JOBS
# workers (test-python-parallel), then the other MPI tests (`serial`, python/tests/conftest.py)
# one at a time (test-python-serial).
test-python: $(TEST_SETUP)
	+$(call both_halves,test-python)

test-python-parallel: $(TEST_SETUP)
	@$(PY) -m pytest -q -n $(TEST_JOBS) --dist loadgroup -m "not serial" python/tests

test-python-serial: $(TEST_SETUP)
	@$(PY) -m pytest -q -m serial python/tests

# Open MPI across network namespaces over TCP (docs/INSTALL.md, "Running across hosts"); needs root, and
# says why it skips otherwise.
test-multihost: $(TEST_SETUP)
	@$(PY) -m pytest -q -rs tests/multihost

# A real Slurm cluster of two nodes on this machine (scripts/slurm-test-cluster; docs/INSTALL.md,
# "Slurm"), started and stopped by the tests: srun campaigns and the batch workflow. Needs root
# (it installs Slurm and munge when missing) and says in one line why it skips otherwise. The
# timeout's SIGINT still stops the cluster (the tests' fixture).
test-slurm: $(TEST_SETUP)
	@timeout -s INT 900 $(PY) -m pytest -q -rs tests/slurm || \
	  { status=$$?; [ $$status -ne 124 ] || echo "test-slurm: stopped after 900 s"; exit $$status; }

demo: build
	@$(PY) -m mpimeter run --out results/demo-$$(date +%Y%m%d-%H%M%S)

clean:
	rm -rf build
