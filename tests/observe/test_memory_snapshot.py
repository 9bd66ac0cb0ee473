"""Memory snapshots: segments tiled by their blocks, totals equal to ascendsim.memory_stats, the CLI printout."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import ascendsim
from ascendcl import ACL_SUCCESS, aclrtFree, aclrtMalloc


def test_snapshot_agrees_with_memory_stats(device: int, tmp_path: Path) -> None:
    sizes = [1000, 300_000, 5 << 20, 30 << 20, 4096]
    pointers = []
    for size in sizes:
        p, ret = aclrtMalloc(size, 0)
        assert ret == ACL_SUCCESS
        pointers.append(p)
    assert aclrtFree(pointers.pop(1)) == ACL_SUCCESS  # a free block inside a segment
    try:
        snapshot = ascendsim.memory_snapshot(device)
        stats = ascendsim.memory_stats(device)
        totals = snapshot["totals"]
        assert snapshot["device"] == device
        for key in ("reserved_bytes", "allocated_bytes", "requested_bytes", "segment_count"):
            assert totals[key] == stats[key], key
        assert totals["reserved_bytes"] == totals["allocated_bytes"] + totals["free_bytes"]
        for segment in snapshot["segments"]:
            address = segment["address"]
            for block in segment["blocks"]:  # the blocks tile the segment in address order
                assert block["address"] == address
                address += block["size"]
            assert address == segment["address"] + segment["size"]
            assert segment["pool"] in ("small", "large")
        live = {b["address"]: b for s in snapshot["segments"] for b in s["blocks"] if b["state"] == "allocated"}
        for p, size in zip(pointers, [sizes[0], *sizes[2:]]):
            assert live[p]["requested"] == size and live[p]["api"] == "aclrtMalloc" and live[p]["seq"] > 0
        text = ascendsim.format_memory_snapshot(snapshot)
        assert text.count("\nsegment ") == totals["segment_count"] and "requested by aclrtMalloc" in text
        # Saved, then printed by `ascendsim memory FILE`.
        path = tmp_path / "snapshot.json"
        ascendsim.save_memory_snapshot(device, path)
        assert json.loads(path.read_text())["totals"] == totals
        cli = subprocess.run([sys.executable, "-m", "ascendsim", "memory", str(path)], capture_output=True, text=True,
                             check=False)
        assert cli.returncode == 0, cli.stderr
        assert cli.stdout.strip() == text
    finally:
        for p in pointers:
            aclrtFree(p)


def test_cli_errors(tmp_path: Path) -> None:
    missing = subprocess.run([sys.executable, "-m", "ascendsim", "memory", str(tmp_path / "none.json")],
                             capture_output=True, text=True, check=False)
    assert missing.returncode == 1 and "none.json" in missing.stderr
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    result = subprocess.run([sys.executable, "-m", "ascendsim", "memory", str(bad)], capture_output=True, text=True,
                            check=False)
    assert result.returncode == 1 and "not a memory snapshot" in result.stderr
