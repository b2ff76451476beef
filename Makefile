# mpimeter — `make demo` and `make test` set everything up themselves (see README.md).
SHELL := /bin/bash
.DEFAULT_GOAL := demo
PY := .venv/bin/python
# One build per MPI library found: build/openmpi, build/mpich.
MPI_LIBS := $(strip $(if $(shell command -v mpicc.openmpi),openmpi) $(if $(shell command -v mpicc.mpich),mpich))
MPIEXEC_openmpi := /usr/bin/mpiexec.openmpi
MPIEXEC_mpich := /usr/bin/mpiexec.mpich
JOBS ?= 2

.PHONY: demo test setup build clean test-c test-mpi test-python test-multihost build-smpi simulate test-simulate

setup:
	@scripts/setup.sh

# MPI_LIBS is evaluated after setup (a sub-make), so a fresh machine builds both libraries.
build: setup
	@$(MAKE) --no-print-directory build-libs

.PHONY: build-libs
build-libs:
	@test -n "$(MPI_LIBS)" || { echo "no MPI library found (mpicc.openmpi, mpicc.mpich)"; exit 1; }
	@mkdir -p build
	@for lib in $(MPI_LIBS); do \
	  mpiexec=/usr/bin/mpiexec.$$lib; \
	  cmake -S . -B build/$$lib -DMPI_C_COMPILER=mpicc.$$lib -DMPIEXEC_EXECUTABLE=$$mpiexec \
	        -DMM_WERROR=ON >build/$$lib.cmake.log 2>&1 || { cat build/$$lib.cmake.log; exit 1; }; \
	  cmake --build build/$$lib -j $(JOBS) >/dev/null || cmake --build build/$$lib -j 1 || exit 1; \
	  echo "built build/$$lib/bin/mpimeter-bench"; \
	done

# SimGrid's SMPI (smpicc from libsimgrid-dev): mpimeter-bench for simulated clusters, beside
# the real builds. SMPI_PRETEND_CC only for CMake's configure probes (otherwise smpicc links them
# as SMPI plugins, which cannot run); only the binary is built (the unit tests need no SMPI).
build-smpi:
	@command -v smpicc >/dev/null || { echo "smpicc not found: install libsimgrid-dev (as root: apt-get install libsimgrid-dev)"; exit 1; }
	@mkdir -p build
	@SMPI_PRETEND_CC=1 cmake -S . -B build/smpi -DCMAKE_C_COMPILER=smpicc -DMPI_C_COMPILER=smpicc \
	      -DMM_WERROR=ON >build/smpi.cmake.log 2>&1 || { cat build/smpi.cmake.log; exit 1; }
	@cmake --build build/smpi -j $(JOBS) --target mpimeter-bench >/dev/null || \
	  cmake --build build/smpi -j 1 --target mpimeter-bench || exit 1
	@echo "built build/smpi/bin/mpimeter-bench"

# The clock-sync study on simulated clusters up to 1024 ranks (bench/simulate.py; a few minutes).
simulate: setup
	@MM_WITH_SIMGRID=1 scripts/setup.sh
	@$(MAKE) --no-print-directory build-smpi
	@$(PY) bench/simulate.py --out bench/results/simulate.json

# Its small case (64 ranks); skipped with the reason when libsimgrid-dev is missing.
test-simulate:
	@if command -v smpicc >/dev/null; then $(MAKE) --no-print-directory build-smpi; fi
	@$(PY) -m pytest -q c/tests/simgrid

# `make test` runs every group of tests, also after one fails, then fails naming those that did.
# The report tests open the HTML in headless Chromium, the simulation tests need SimGrid: the
# test set-up installs both too.
test: build
	@MM_WITH_CHROMIUM=1 MM_WITH_SIMGRID=1 scripts/setup.sh
	@failed=""; \
	for target in test-c test-mpi test-python test-multihost-run test-simulate; do \
	  $(MAKE) --no-print-directory $$target || failed="$$failed $$target"; \
	done; \
	if [ -n "$$failed" ]; then echo "make test: failed:$$failed"; exit 1; fi; \
	echo "make test: all passed"

# Every library's unit tests run, also after one fails (a failure must not hide the rest).
test-c:
	@failed=""; \
	for lib in $(MPI_LIBS); do ctest --test-dir build/$$lib --output-on-failure || failed="$$failed $$lib"; done; \
	if [ -n "$$failed" ]; then echo "test-c: C unit tests failed for:$$failed"; exit 1; fi

test-mpi:
	@$(PY) -m pytest -q c/tests/mpi

test-python:
	@$(PY) -m pytest -q python/tests

# Open MPI across network namespaces over TCP (README "Running across hosts"); needs root, and
# says why it skips otherwise. Alone it builds first; `make test` has built already.
test-multihost: build
	@$(MAKE) --no-print-directory test-multihost-run

.PHONY: test-multihost-run
test-multihost-run:
	@$(PY) -m pytest -q -rs tests/multihost

demo: build
	@$(PY) -m mpimeter run --out results/demo-$$(date +%Y%m%d-%H%M%S)

clean:
	rm -rf build
