# SPDX-License-Identifier: BSD-3-Clause
# The mpimeter command (campaigns, analysis, reports), built from python/ of the source tree,
# with the C core (the package mpimeter) at run time (docs/INSTALL.md, "Spack").

from spack_repo.builtin.build_systems.python import PythonPackage

from spack.package import *


class PyMpimeter(PythonPackage):
    """MPI micro-benchmarks you can trust: the mpimeter command, which runs campaigns of many
    launches of mpimeter-bench in randomized order and computes their statistics, fingerprints
    and reports."""

    homepage = "https://github.com/mpimeter/mpimeter"
    # The same source as the package mpimeter: the whole tree, of which python/ is built.
    url = "https://github.com/mpimeter/mpimeter/releases/download/v0.2.0/mpimeter-0.2.0-source.tar.gz"
    git = "https://github.com/mpimeter/mpimeter.git"

    maintainers("mpimeter")

    license("BSD-3-Clause")

    version("main", branch="main")
    # As in the package mpimeter: the tag until the release tarball's sha256 is known.
    version("0.2.0", tag="v0.2.0")

    # pyproject.toml is in python/ (its licence file links to the tree's LICENSE)
    build_directory = "python"

    # the bounds of python/pyproject.toml, one for one
    depends_on("python@3.10:", type=("build", "run"))
    depends_on("py-setuptools@77:", type="build")
    depends_on("py-numpy@1.26:2", type=("build", "run"))
    depends_on("py-scipy@1.13:1", type=("build", "run"))
    depends_on("py-pandas@2.2:3", type=("build", "run"))
    depends_on("py-pyarrow@15:", type=("build", "run"))
    # Spack has no py-duckdb: the duckdb package builds the Python module with +python
    depends_on("duckdb@1.2:2+python", type=("build", "run"))
    depends_on("py-matplotlib@3.8:3", type=("build", "run"))
    depends_on("py-statsmodels@0.14.2:0.15", type=("build", "run"))
    depends_on("py-click@8.2:8", type=("build", "run"))
    depends_on("py-rich@13.7:", type=("build", "run"))
    # mpimeter-bench of the same version, which `mpimeter run` launches (MPIMETER_BENCH_DIR)
    depends_on("mpimeter@main", when="@main", type="run")
    depends_on("mpimeter@0.2.0", when="@0.2.0", type="run")

    def test_version(self):
        """mpimeter --version names this version"""
        mpimeter = which(self.prefix.bin.join("mpimeter"), required=True)
        out = mpimeter("--version", output=str.split, error=str.split)
        assert out.startswith("mpimeter, version "), out
        # a branch (main) builds the version its sources name, not the branch's name
        if not self.spec.satisfies("@main"):
            assert out.split()[2] == str(self.spec.version), out
