# SPDX-License-Identifier: BSD-3-Clause
"""A test bed of several network "hosts" on one machine: one network namespace per host, all
joined by veth pairs to a bridge in a "switch" namespace (iproute2, as root).

Why namespaces: Open MPI then really talks TCP between hosts (its own addresses, its own
interfaces), which is what runs on a cluster, and clock sync and window starts meet real
network delays. Every link is created inside a namespace, never in the machine's own one, so
deleting the namespaces deletes the links and parallel beds (names carry the pid) cannot
collide. Host names: `ip netns exec` leaves the UTS namespace alone, so scripts/multihost/
netns-rsh sets each host's name in a fresh UTS namespace (see that script).
"""

from __future__ import annotations

import ipaddress
import shlex
import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
AGENT = REPO / "scripts" / "multihost" / "netns-rsh"
SUBNET = ipaddress.ip_network("10.213.0.0/24")  # private; lives only inside the bed's namespaces
MIN_HOSTS, MAX_HOSTS = 2, 4


class BedUnavailable(Exception):
    """The machine cannot make namespaces here (not root, no iproute2): the tests are skipped
    with this reason."""


def _ip(*args: str) -> None:
    proc = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=30)
    if proc.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)} failed ({proc.returncode}): {proc.stderr.strip()}")


def unavailable_reason() -> str | None:
    """Why this machine cannot host the bed, or None."""
    if os.geteuid() != 0:
        return f"the multi-host test bed needs root to create network namespaces (euid {os.geteuid()})"
    for program, package in (("ip", "iproute2"), ("unshare", "util-linux"), ("hostname", "hostname")):
        if shutil.which(program) is None:
            return f"the multi-host test bed needs `{program}` ({package}), which is not on PATH"
    return None


@dataclass
class Host:
    namespace: str
    hostname: str
    address: str


@dataclass
class TestBed:
    """`nhosts` hosts named after `tag` (include the pid: names must be unique per run)."""

    nhosts: int
    tag: str
    hosts: list[Host] = field(default_factory=list)
    created: list[str] = field(default_factory=list)  # namespaces this bed made, to delete

    __test__ = False  # not a pytest test class

    def __post_init__(self) -> None:
        if not MIN_HOSTS <= self.nhosts <= MAX_HOSTS:
            raise ValueError(f"a test bed has {MIN_HOSTS} to {MAX_HOSTS} hosts, not {self.nhosts}")
        addresses = list(SUBNET.hosts())
        self.switch = f"mm-{self.tag}-sw"
        self.hosts = [Host(f"mm-{self.tag}-h{i}", f"mmhost{i}-{self.tag}", str(addresses[i]))
                      for i in range(self.nhosts)]

    def create(self) -> None:
        """Make the namespaces and links. Raises BedUnavailable when the first namespace cannot
        be made at all; anything failing after that is an error (and delete() still cleans)."""
        reason = unavailable_reason()
        if reason:
            raise BedUnavailable(reason)
        try:
            _ip("netns", "add", self.switch)
        except RuntimeError as exc:
            raise BedUnavailable(f"cannot create a network namespace: {exc}") from None
        self.created.append(self.switch)
        _ip("-n", self.switch, "link", "add", "br0", "type", "bridge")
        _ip("-n", self.switch, "link", "set", "br0", "up")
        for i, host in enumerate(self.hosts):
            _ip("netns", "add", host.namespace)
            self.created.append(host.namespace)
            port = f"port{i}"
            # Made inside the switch with its peer moved straight into the host: no name in the
            # machine's own namespace, so no collision with anyone else's links.
            _ip("-n", self.switch, "link", "add", port, "type", "veth",
                "peer", "name", "eth0", "netns", host.namespace)
            _ip("-n", self.switch, "link", "set", port, "master", "br0", "up")
            _ip("-n", host.namespace, "addr", "add", f"{host.address}/{SUBNET.prefixlen}", "dev", "eth0")
            _ip("-n", host.namespace, "link", "set", "eth0", "up")
            _ip("-n", host.namespace, "link", "set", "lo", "up")

    def delete(self) -> list[str]:
        """Stop what still runs in the bed's namespaces (only processes inside namespaces this
        bed made), then delete them; their links go with them. Returns the problems met."""
        problems = []
        for namespace in reversed(self.created):
            self._stop_processes(namespace)
            try:
                _ip("netns", "delete", namespace)
            except RuntimeError as exc:
                problems.append(str(exc))
        self.created.clear()
        return problems

    @staticmethod
    def _stop_processes(namespace: str) -> None:
        proc = subprocess.run(["ip", "netns", "pids", namespace], capture_output=True, text=True,
                              timeout=30)
        pids = [int(p) for p in proc.stdout.split()]
        for sig in (signal.SIGTERM, signal.SIGKILL):
            for pid in pids:
                try:
                    os.kill(pid, sig)
                except ProcessLookupError:
                    pass
            deadline = time.monotonic() + 5
            while pids and time.monotonic() < deadline:
                pids = [p for p in pids if Path(f"/proc/{p}").exists()]
                time.sleep(0.1)

    def existing(self) -> list[str]:
        """The bed's namespaces that exist now (to check clean-up)."""
        listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True,
                                timeout=30).stdout.split("\n")
        names = {line.split()[0] for line in listed if line.strip()}
        return [n for n in [self.switch] + [h.namespace for h in self.hosts] if n in names]

    # What a launch across the bed needs.

    def env(self) -> dict[str, str]:
        """The environment of the launching side: the agent's map address=namespace=hostname."""
        hosts = " ".join(f"{h.address}={h.namespace}={h.hostname}" for h in self.hosts)
        return {**os.environ, "MM_NETNS_HOSTS": hosts}

    def write_hostfile(self, path: Path, slots: list[int]) -> Path:
        if len(slots) != self.nhosts or min(slots) < 1:
            raise ValueError(f"one slot count ≥ 1 per host ({self.nhosts}), not {slots}")
        path.write_text("".join(f"{h.address} slots={s}\n" for h, s in zip(self.hosts, slots)))
        return path

    def mpirun_line(self, hostfile: Path, np: str, command: str) -> str:
        """The Open MPI command line that starts `command` on `np` ranks across the hosts."""
        subnet = str(SUBNET)
        flags = ["--hostfile", str(hostfile), "--mca", "plm_rsh_agent", str(AGENT),
                 "--mca", "btl", "tcp,self", "--mca", "btl_tcp_if_include", subnet,
                 "--mca", "oob_tcp_if_include", subnet, "--bind-to", "none",
                 # Ranks that spin in MPI's progress loop, on CPUs the hosts share, held a 1-byte
                 # ping-pong across hosts at ~4 ms one way on this busy 2-core machine; when they
                 # yield, ~12 µs (within one host it is ~7 µs either way).
                 "--mca", "mpi_yield_when_idle", "1"]
        if os.geteuid() == 0:
            flags.append("--allow-run-as-root")
        # a shell command line (the agent runs it with sh -c): paths quoted, `command` already is
        return " ".join([shlex.join(["mpirun.openmpi", *flags, "-np"]), np, command])

    def launch_argv(self, hostfile: Path, np: int, command: list[str]) -> list[str]:
        """argv run on this machine: the agent enters the first host and runs mpirun there."""
        return [str(AGENT), self.hosts[0].address,
                self.mpirun_line(hostfile, str(np), shlex.join(command))]

    def launcher_template(self, hostfile: Path) -> str:
        """The same as a `mpimeter run --launcher` template ({cmd} inside the quoted line
        becomes the shell-quoted bench command)."""
        return f"{shlex.quote(str(AGENT))} {self.hosts[0].address} " \
               f"{shlex.quote(self.mpirun_line(hostfile, '{np}', '{cmd}'))}"
