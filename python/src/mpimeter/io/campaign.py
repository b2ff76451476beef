"""Deciding what a folder is (docs/FORMAT.md, "A campaign folder") and reading all its launches.

- a folder with ``meta.json`` is one launch;
- a folder with ``launches/`` is a campaign of one alternative (named after the folder);
- a folder whose sub-folders hold ``launches/`` is a campaign of several alternatives (named
  after the sub-folders, in campaign.json's order when there is one, else sorted).
Anything else is refused with a message naming the folder.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from mpimeter import SCHEMA_VERSION
from mpimeter.io import siblings
from mpimeter.io.errors import AnalysisWarning, InputError
from mpimeter.io.jsonread import INT, STR, Fields, load_json
from mpimeter.io.launch import LaunchData, read_launch


@dataclass(frozen=True)
class Layout:
    root: Path
    kind: str  # "launch" | "campaign" | "alternatives"
    alternatives: tuple[tuple[str, tuple[Path, ...]], ...]  # (name, launch folders)
    skipped: tuple[Path, ...]  # launch folders without meta.json
    skipped_folders: tuple[tuple[Path, str], ...] = ()  # sub-folders not read, with the reason


@dataclass(frozen=True)
class LoadedLaunch:
    alternative: str
    index: int
    data: LaunchData


@dataclass(frozen=True)
class LoadedCampaign:
    layout: Layout
    launches: tuple[LoadedLaunch, ...]
    campaign_json: dict[str, Any] | None
    warnings: tuple[AnalysisWarning, ...]


def _launch_dirs(launches: Path) -> tuple[list[Path], list[Path]]:
    found, skipped = [], []
    for d in sorted(p for p in launches.iterdir() if p.is_dir() and not p.name.startswith(".")):
        (found if (d / "meta.json").exists() else skipped).append(d)
    return found, skipped


def read_campaign_json(path: Path) -> dict[str, Any] | None:
    """campaign.json of the folder ``path`` (None when there is none), after checking what the
    readers use: ``schema_version``, ``alternatives[].name``, ``launches[].folder`` and ``seed``."""
    f = path / "campaign.json"
    if not f.exists():
        return None
    obj = load_json(f)
    fields = Fields(f, obj)
    version = obj.get("schema_version")
    if version != SCHEMA_VERSION or isinstance(version, bool):
        raise InputError(f, f"has schema_version {version!r}; this mpimeter reads version {SCHEMA_VERSION} only")
    for alt in fields.objs("alternatives"):
        alt.need("name", STR)
    for launch in fields.objs("launches"):
        launch.need("folder", STR)
        launch.get("seed", INT)
        launch.get("alternative", STR)
    return obj


def _alt_name(folder: Path) -> str:
    """Name of the alternative a lone launch folder belongs to: its campaign's folder name."""
    if folder.parent.name == "launches":
        return folder.parent.parent.resolve().name or "launch"
    return folder.resolve().name


def discover(path: str | Path, campaign_json: dict[str, Any] | None = None) -> Layout:
    root = Path(path)
    if not root.exists():
        raise InputError(root, "does not exist")
    if not root.is_dir():
        raise InputError(root, "is not a folder (give a campaign folder or a launch folder)")
    if (root / "meta.json").exists():
        return Layout(root, "launch", ((_alt_name(root), (root,)),), ())
    if (root / "launches").is_dir():
        found, skipped = _launch_dirs(root / "launches")
        if not found:
            raise InputError(root / "launches", "holds no launch folder with a meta.json")
        return Layout(root, "campaign", ((root.resolve().name, tuple(found)),), tuple(skipped))
    if campaign_json is None:
        campaign_json = read_campaign_json(root)
    subs = {p.name: p for p in root.iterdir() if p.is_dir() and (p / "launches").is_dir()}
    if not subs:
        raise InputError(
            root, "is not a campaign or launch folder (no meta.json, no launches/, no sub-folder with launches/)"
        )
    order = [a.get("name") for a in (campaign_json or {}).get("alternatives", []) if isinstance(a, dict)]
    names = [n for n in order if n in subs] + sorted(n for n in subs if n not in order)
    alts, skipped_all = [], []
    for n in names:
        found, skipped = _launch_dirs(subs[n] / "launches")
        skipped_all += skipped
        if found:
            alts.append((n, tuple(found)))
    if not alts:
        raise InputError(root, "holds alternatives but no launch folder with a meta.json")
    others = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".") and p.name not in subs)
    not_read = tuple((p, why) for p in others if (why := _why_not_an_alternative(p)))
    return Layout(root, "alternatives", tuple(alts), tuple(skipped_all), not_read)


def _why_not_an_alternative(folder: Path) -> str:
    """Why a sub-folder that looks like benchmark data is not read as an alternative ("" when it
    does not look like benchmark data, e.g. logs/)."""
    try:
        inner = [p for p in folder.iterdir() if p.is_dir()]
    except OSError:
        return ""
    if any((p / "launches").is_dir() for p in inner):
        return ("it is itself a folder of alternatives (or of campaigns); only sub-folders with launches/ are read "
                "as alternatives")
    if (folder / "campaign.json").exists():
        return "it has a campaign.json but no launches/"
    if (folder / "meta.json").exists():
        return "it is a launch folder, not a campaign (no launches/)"
    return ""


def _index(folder: Path, position: int) -> int:
    return int(folder.name) if folder.name.isdigit() else position


def load(path: str | Path, *, name: str | None = None, cache: bool = True, allow_mixed: bool = False) -> LoadedCampaign:
    """Reads every launch of the folder at ``path``. ``name`` renames a single alternative;
    ``allow_mixed``: launches of one alternative that do not belong together (io.siblings) are a
    warning instead of an error."""
    root = Path(path)
    cj = read_campaign_json(root) if root.is_dir() and not (root / "meta.json").exists() else None
    layout = discover(root, cj)
    warnings = [
        AnalysisWarning("launch-not-started", "launch folder has no meta.json and was skipped",
                        "a pending or crashed-at-start launch; re-run it", str(p))
        for p in layout.skipped
    ]
    warnings += [
        AnalysisWarning("folder-skipped", f"{p.name} was not read: {why}",
                        f"analyze it on its own: mpimeter analyze {p}", str(p))
        for p, why in layout.skipped_folders
    ]
    launches = []
    for alt, folders in layout.alternatives:
        alt_name = name if name is not None and len(layout.alternatives) == 1 else alt
        datas = [read_launch(folder, cache=cache) for folder in folders]
        warnings += siblings.check_siblings(alt_name, [(d.folder, d.meta) for d in datas],
                                            siblings.planned_seeds(root, cj, folders), allow_mixed=allow_mixed)
        for pos, data in enumerate(datas):
            warnings += data.warnings
            launches.append(LoadedLaunch(alt_name, _index(data.folder, pos), data))
    if name is not None and len(layout.alternatives) == 1:
        layout = Layout(layout.root, layout.kind, ((name, layout.alternatives[0][1]),), layout.skipped,
                        layout.skipped_folders)
    return LoadedCampaign(layout, tuple(launches), cj, tuple(warnings))


def combined_raw(launches: tuple[LoadedLaunch, ...]) -> pa.Table:
    """All launches' raw rows in one table with ``alternative`` and ``launch`` in front and
    ``rgstart_ns``/``rgend_ns`` null where the launch had no re-synced clock."""
    parts = []
    for ll in launches:
        t = ll.data.raw
        n = t.num_rows
        if "rgstart_ns" not in t.column_names:
            t = t.append_column("rgstart_ns", pa.nulls(n, pa.int64())).append_column("rgend_ns", pa.nulls(n, pa.int64()))
        t = t.add_column(0, "launch", pa.repeat(pa.scalar(ll.index, pa.int32()), n))
        t = t.add_column(0, "alternative", pa.repeat(pa.scalar(ll.alternative, pa.string()), n))
        parts.append(t)
    if not parts:
        return pa.table({})
    # one chunk per column: the reductions then read numpy views instead of copying ~50 chunks
    return pa.concat_tables(parts).combine_chunks()


def combined_sync(launches: tuple[LoadedLaunch, ...]) -> pa.Table:
    parts = []
    for ll in launches:
        t = ll.data.sync
        n = t.num_rows
        t = t.add_column(0, "launch", pa.repeat(pa.scalar(ll.index, pa.int32()), n))
        t = t.add_column(0, "alternative", pa.repeat(pa.scalar(ll.alternative, pa.string()), n))
        parts.append(t)
    return pa.concat_tables(parts) if parts else pa.table({})
