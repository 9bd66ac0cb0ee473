"""`ascendsim bench --plot DIR`: PNG charts of the rows (matplotlib, if installed)."""

from __future__ import annotations

import statistics
import sys
from collections.abc import Sequence
from pathlib import Path

from .common import Row


def write_charts(rows: Sequence[Row], directory: Path) -> list[Path]:
    """copies.png (bandwidth vs size per copy kind, beside memcpy) and models.png (latency per model and
    thread count, beside onnxruntime), for the rows present; says so and writes nothing without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("ascendsim bench --plot: matplotlib is not installed (pip install matplotlib): no charts written",
              file=sys.stderr)
        return []
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    copies = [row for row in rows if row["group"] == "copy"]
    if copies:
        figure, axes = plt.subplots(figsize=(8, 5))
        series: dict[str, list[tuple[int, float]]] = {}
        peers: dict[int, list[float]] = {}  # every copy row has its own memcpy, timed in turns with it
        for row in copies:
            words = row["benchmark"].split()
            series.setdefault(f"{words[1]} {words[-1]}", []).append((row["bytes"], row["bytes"] / row["ours"]["ns"]))
            peers.setdefault(row["bytes"], []).append(row["bytes"] / row["peer"]["ns"])
        series["memcpy (c), median of the rows' peers"] = [(size, statistics.median(values))
                                                            for size, values in peers.items()]
        for label, points in series.items():
            axes.plot([p[0] for p in points], [p[1] for p in points], marker="o",
                      linestyle="--" if label.startswith("memcpy") else "-", label=label)
        axes.set_xscale("log", base=2)
        axes.set_xlabel("bytes per copy")
        axes.set_ylabel("GB/s (median)")
        axes.set_title("aclrtMemcpy bandwidth vs size, beside memcpy")
        axes.legend(fontsize="small")
        path = directory / "copies.png"
        figure.savefig(path, dpi=100, bbox_inches="tight")
        plt.close(figure)
        written.append(path)
    latencies = [row for row in rows if row["goal_ratio"] is not None and not row["bytes"]]
    if latencies:
        figure, axes = plt.subplots(figsize=(8, 5))
        positions = range(len(latencies))
        axes.bar([p - 0.2 for p in positions], [r["ours"]["ns"] / 1e6 for r in latencies], 0.4, label="ascendsim")
        axes.bar([p + 0.2 for p in positions], [r["peer"]["ns"] / 1e6 for r in latencies], 0.4, label="onnxruntime")
        axes.set_xticks(list(positions), [r["name"] for r in latencies], rotation=30, ha="right")
        axes.set_yscale("log")
        axes.set_ylabel("ms per inference (median, log scale)")
        axes.set_title("model latency, beside onnxruntime")
        axes.legend()
        path = directory / "models.png"
        figure.savefig(path, dpi=100, bbox_inches="tight")
        plt.close(figure)
        written.append(path)
    return written
