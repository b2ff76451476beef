# SPDX-License-Identifier: BSD-3-Clause
"""What identifies a campaign in the results store, and which machine it ran on.

The id: campaign.json's ``id`` (32 hex digits, written by ``mpimeter run`` when it creates a
campaign and kept by ``--resume``). A campaign without one — older than the key, hand-made, or
a lone launch folder — gets a stable fallback: ``m`` followed by the first 31 hex digits of the
SHA-256 of its launches' meta.json files (each file's own SHA-256, with the launch folder
relative to the campaign, in order), so the same folders give the same id wherever they are
copied, and a launch that changes gives another.

The machine: what ``--machine`` names, or by default the host rank 0 ran on in the campaign's
first launch, with ``+N`` when its ranks ran on N more hosts (a cluster's rank-0 node changes
between campaigns: name the machine there). Text read from disk is untrusted: ids are checked
against their pattern, and names are printed escaped wherever they are shown.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from mpimeter.io import bounded
from mpimeter.io.errors import InputError
from mpimeter.io.jsonread import MAX_BYTES

ID_PATTERN = re.compile(r"[0-9a-f]{32}")
MAX_MACHINE = 120  # characters of a machine name


def campaign_id(campaign) -> tuple[str, str]:
    """(id, where it came from: ``campaign.json`` or ``meta.json hash``) of an
    ``analysis.Campaign``."""
    cj = campaign.campaign_record
    if cj is not None and cj.id_given:
        value = cj.id
        if not isinstance(value, str) or not ID_PATTERN.fullmatch(value):
            raise InputError(Path(campaign.path) / "campaign.json",
                             f"id {str(value)[:40]!r} is not an id mpimeter writes (32 hex digits)")
        return value, "campaign.json"
    root = Path(campaign.path).resolve()
    digest = hashlib.sha256()
    for li in sorted(campaign.launches, key=lambda li: (li.alternative, li.index)):
        folder = Path(li.folder).resolve()
        try:
            rel = folder.relative_to(root).as_posix()
        except ValueError:
            rel = folder.name
        data = bounded.read_bytes(folder / "meta.json", MAX_BYTES)  # the limit load_campaign read it with
        digest.update(f"{rel}\0{hashlib.sha256(data).hexdigest()}\n".encode())
    return "m" + digest.hexdigest()[:31], "meta.json hash"


def default_machine(campaign) -> str:
    """The host of rank 0 in the first launch, ``+N`` for N more hosts over all launches."""
    first = campaign.launches[0].meta if campaign.launches else None
    host = (first.host_of_rank0 if first else None) or "unknown"
    hosts = {h for li in campaign.launches for h in li.meta.hosts}
    more = len(hosts - {host})
    return f"{host} +{more}" if more else host


def check_machine(name: str) -> str:
    """A machine name given with --machine: printable, not empty, at most MAX_MACHINE characters."""
    if not name.strip() or len(name) > MAX_MACHINE or not name.isprintable():
        raise ValueError(f"--machine {name[:MAX_MACHINE]!r}: allowed: 1 to {MAX_MACHINE} printable characters")
    return name
