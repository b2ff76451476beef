# SPDX-License-Identifier: BSD-3-Clause
"""The rsh agent refuses what it cannot map to a namespace, in its own words, with ssh's exit
code for a connection failure (255), so that mpirun reports a failed daemon launch."""

from __future__ import annotations

import os
import subprocess

import pytest

from netns_bed import AGENT


def agent(args: list[str], hosts: str | None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "MM_NETNS_HOSTS"}
    if hosts is not None:
        env["MM_NETNS_HOSTS"] = hosts
    return subprocess.run([str(AGENT), *args], env=env, capture_output=True, text=True, timeout=30)


@pytest.mark.parametrize("args,hosts,needle", [
    ([], "10.0.0.1=ns=h", "usage: netns-rsh HOST COMMAND"),
    (["10.0.0.1"], "10.0.0.1=ns=h", "usage: netns-rsh HOST COMMAND"),
    (["10.0.0.1", "true"], None, "MM_NETNS_HOSTS is not set"),
    (["10.0.0.1", "true"], "10.0.0.1=ns", "entry '10.0.0.1=ns' is not ADDRESS=NAMESPACE=HOSTNAME"),
    (["10.0.0.2", "true"], "10.0.0.1=ns=h", "host 10.0.0.2 is not in MM_NETNS_HOSTS"),
    (["-x", "10.0.0.1", "true"], "10.0.0.1=ns=h", "option -x is not supported"),
])
def test_agent_refuses(args, hosts, needle):
    proc = agent(args, hosts)
    assert proc.returncode == 255
    assert needle in proc.stderr
    assert proc.stdout == ""
