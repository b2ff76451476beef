# SPDX-License-Identifier: BSD-3-Clause
# The C measurement core of mpimeter (mpimeter-bench) built with the MPI of a Spack environment.
# The Python CLI is installed with pip (docs/INSTALL.md, "The Python package next to others");
# it finds the binary through MPIMETER_BENCH_DIR, which this package sets. In an active
# environment (docs/INSTALL.md, "Spack"):
#
#   spack repo add spack
#   spack develop --path . mpimeter@0.2.0 && spack add mpimeter@0.2.0 +papi && spack install

from spack.package import *


class Mpimeter(CMakePackage):
    """MPI micro-benchmarks with synchronized clocks, window-based starts, many launches and
    their statistics: the C measurement core, mpimeter-bench."""

    license("BSD-3-Clause")

    # No public download yet: built from a checkout with `spack develop` (above).
    version("0.2.0")

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
            self.define_from_variant("MM_WITH_PAPI", "papi"),
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
        cmake = which("cmake")
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

    def setup_run_environment(self, env):
        # CMakeLists.txt installs share/mpimeter/bench/<library>/{bin/mpimeter-bench,mpi.json}
        env.set("MPIMETER_BENCH_DIR", self.prefix.share.mpimeter.bench)
