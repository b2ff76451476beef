# SPDX-License-Identifier: BSD-3-Clause
"""The test cluster itself (scripts/slurm-test-cluster): two nodes idle before any job, each
slurmd on its own address and host name, and `start` on a running cluster only checks it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "slurm-test-cluster"


def test_the_cluster_has_two_idle_nodes_and_start_again_changes_nothing(cluster):
    status = subprocess.run([sys.executable, str(SCRIPT), "status", str(cluster.root)],
                            capture_output=True, text=True, timeout=60)
    assert status.returncode == 0, status.stdout + status.stderr
    assert status.stdout.split("\n")[:2] == ["node1 idle", "node2 idle"]
    again = subprocess.run([sys.executable, str(SCRIPT), "start", str(cluster.root)],
                           capture_output=True, text=True, timeout=120)
    assert again.returncode == 0 and "already running" in again.stdout, again.stderr
    nodes = cluster.run("scontrol", "show", "node", "-o", timeout=30)
    assert nodes.returncode == 0, nodes.stderr
    addresses = {line.split("NodeAddr=")[1].split()[0] for line in nodes.stdout.splitlines()}
    assert len(addresses) == 2  # one network namespace, one address per node
    hosts = cluster.run("srun", "--nodes=2", "--ntasks=2", "hostname", timeout=60)
    assert sorted(hosts.stdout.split()) == ["node1", "node2"], hosts.stderr
