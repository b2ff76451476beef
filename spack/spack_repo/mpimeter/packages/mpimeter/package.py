# SPDX-License-Identifier: BSD-3-Clause
# The C measurement core of mpimeter, built with the MPI of a Spack environment; the mpimeter
# command is the package py-mpimeter beside this one (docs/INSTALL.md, "Spack").

from spack_repo.builtin.build_systems.cmake import CMakePackage

from spack.package import *


class Mpimeter(CMakePackage):
    """MPI micro-benchmarks with synchronized clocks, window-based starts, many launches and
    their statistics: the C measurement core, mpimeter-bench. The mpimeter command that runs
    campaigns of it and analyses them is the package py-mpimeter."""

    homepage = "https://github.com/mpimeter/mpimeter"
    # The release's source tarball of the whole tree (docs/RELEASING.md, "Tag and the source
    # tarball"): CMake reads the version from the Python package in it.
    url = "https://github.com/mpimeter/mpimeter/releases/download/v0.2.0/mpimeter-0.2.0-source.tar.gz"
    git = "https://github.com/mpimeter/mpimeter.git"

    maintainers("mpimeter")

    license("BSD-3-Clause")

    version("main", branch="main")
    # Until its release tarball is published, a version comes from its tag; then the line names
    # the tarball's sha256 instead (docs/RELEASING.md).
    version("0.2.0", tag="v0.2.0")

    variant("papi", default=False, description="Hardware counters through PAPI (--papi)")
    variant(
        "simgrid",
        default=False,
        description="Also mpimeter-bench for SimGrid's SMPI (simulated clusters)",
    )

    depends_on("c", type="build")
    depends_on("cmake@3.19:", type="build")
    depends_on("mpi")
    depends_on("papi", when="+papi")
    depends_on("simgrid", when="+simgrid")

    def cmake_args(self):
        return [
            self.define("MPI_C_COMPILER", self.spec["mpi"].mpicc),
            # Off unless asked for: CMake would otherwise take a PAPI it finds on the system.
            self.define_from_variant("MM_WITH_PAPI", "papi"),
            # Nor a LIKWID it finds (--likwid): no variant for it (LIKWID is GPL-3.0).
            self.define("MM_WITH_LIKWID", False),
            # Warnings are errors in the project's own builds, not with every compiler Spack has.
            self.define("MM_WERROR", False),
        ]

    @run_after("install")
    def install_smpi(self):
        """The SimGrid build beside the MPI one: configured with smpicc, as `make build-smpi`
        does (SMPI_PRETEND_CC for CMake's probes only), the binary only."""
        if not self.spec.satisfies("+simgrid"):
            return
        smpicc = join_path(self.spec["simgrid"].prefix.bin, "smpicc")
        build = join_path(self.stage.path, "spack-build-smpi")
        cmake = which("cmake", required=True)
        with working_dir(build, create=True):
            cmake(
                self.stage.source_path,
                f"-DCMAKE_C_COMPILER={smpicc}",
                f"-DMPI_C_COMPILER={smpicc}",
                "-DMM_WERROR=OFF",
                "-DMM_WITH_PAPI=OFF",
                extra_env={"SMPI_PRETEND_CC": "1"},
            )
            cmake("--build", ".", "--target", "mpimeter-bench")
            mkdirp(self.prefix.share.mpimeter.bench.smpi.bin)
            install(join_path("bin", "mpimeter-bench"), self.prefix.share.mpimeter.bench.smpi.bin)

    def setup_run_environment(self, env: EnvironmentModifications) -> None:
        # mpimeter-bench is in prefix/bin, on PATH already; `mpimeter run` finds it and its
        # mpi.json in share/mpimeter/bench/<library>/ (CMakeLists.txt, `cmake --install`).
        env.set("MPIMETER_BENCH_DIR", self.prefix.share.mpimeter.bench)

    def test_bench_version(self):
        """mpimeter-bench --version names this version"""
        bench = which(self.prefix.bin.join("mpimeter-bench"), required=True)
        # Open MPI refuses a singleton run as root unless told (a test may run as root)
        bench.add_default_env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        bench.add_default_env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        words = bench("--version", output=str.split, error=str.split).split()
        assert words[:1] == ["mpimeter-bench"], words
        # a branch (main) builds the version its sources name, not the branch's name
        if not self.spec.satisfies("@main"):
            assert words[1:2] == [str(self.spec.version)], words
