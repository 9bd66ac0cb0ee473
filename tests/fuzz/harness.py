"""The fuzzers' shared harness: deterministic cases, crash-isolated workers, counts, saved and replayed inputs.

A fuzzer is a module with a `Target`: `generate(rng, index)` makes the bytes of case `index` (the parent calls it
with `random.Random(f"{seed}:{index}")`, so a case depends only on the seed and its index, whatever ran before),
`run(data)` feeds them to the code under test inside a worker and returns an `Outcome` ("accepted", or
"refused" with the error code: a real error code with a message is a pass); any exception escaping `run` is a
traceback, a failure.

Algorithm of `fuzz`: the parent starts one worker subprocess (the fuzzer's own file with `--worker`) and sends
it the cases one after the other over its stdin as frames `u32 length, u32 index, bytes`. Before running a
case the worker writes `S index` on its protocol pipe (its original stdout; its fd 1 is redirected to its log so
that nothing the library prints can corrupt the protocol), then `R index status code`. The parent waits for
the result with a per-case timeout, so
  * a worker that dies (an exit code or a signal: SIGSEGV, SIGABRT, an ASan abort) is a crash of the case it had
    announced; the parent restarts the worker and goes on with the next case;
  * no result before the timeout is a hang: the parent kills the worker's process group and restarts it;
  * text a sanitizer writes to the worker's log during the case (`runtime error:`, `AddressSanitizer`, ...) is a
    sanitizer report of that case, even when the process survives (UBSan without halt_on_error).
Workers run many cases each (a worker starts once, aclInit once), so a run costs the targets, not the process
starts. Every failing input is written to `--save DIR` with a text file saying what happened; `--replay FILE`
runs one saved input through the same isolation and prints its outcome.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import resource
import select
import signal
import struct
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Protocol

FRAME = struct.Struct("<II")
SANITIZER_MARKERS = (b"runtime error:", b"AddressSanitizer", b"LeakSanitizer", b"ThreadSanitizer",
                     b"UndefinedBehaviorSanitizer")
FAILURES = ("crash", "hang", "traceback", "sanitizer")


@dataclass
class Outcome:
    status: str  # "accepted" or "refused"
    code: int = 0  # the error code of a refusal


class Target(Protocol):
    name: str  # the fuzzer's name, used in saved file names
    suffix: str  # the saved inputs' file suffix (".om", ".onnx")
    timeout: float  # seconds a case may take before it is a hang

    def setup(self) -> None: ...  # once per worker, before its first case

    def generate(self, rng: random.Random, index: int) -> bytes: ...

    def run(self, data: bytes) -> Outcome: ...


@dataclass
class Report:
    cases: int = 0
    accepted: int = 0
    refused: Counter[int] = field(default_factory=Counter)
    failures: dict[str, list[int]] = field(default_factory=lambda: {kind: [] for kind in FAILURES})
    seconds: float = 0.0

    def failed(self) -> bool:
        return any(self.failures.values())

    def text(self) -> str:
        refused = ", ".join(f"{code}: {n}" for code, n in sorted(self.refused.items())) or "-"
        counts = ", ".join(f"{kind}es {len(v)}" if kind == "crash" else f"{kind}s {len(v)}"
                           for kind, v in self.failures.items())
        return (f"cases {self.cases}, accepted {self.accepted}, refused {sum(self.refused.values())} "
                f"(by code: {refused}), {counts}; {self.seconds:.1f} s")


# ---- the worker side ----------------------------------------------------------------------------------------

def _read_exact(stream: BinaryIO, size: int) -> bytes | None:
    data = b""
    while len(data) < size:
        chunk = stream.read(size - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def _limit_memory(limit_mb: int) -> None:
    """An address-space cap keeps a runaway allocation a refusal or a crash, not the machine's swap. Sanitizers
    reserve terabytes of shadow memory, so the cap is left off under them."""
    if limit_mb > 0 and "asan" not in os.environ.get("LD_PRELOAD", "") and "tsan" not in os.environ.get("LD_PRELOAD", ""):
        resource.setrlimit(resource.RLIMIT_AS, (limit_mb << 20, limit_mb << 20))


def serve(target: Target) -> None:
    """The worker loop: frames in on stdin, `S i` / `R i status code` out on the original stdout."""
    protocol = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # the library's and Python's prints go to the log the parent scans
    sys.stdout = os.fdopen(1, "w", buffering=1)
    _limit_memory(int(os.environ.get("ASCENDSIM_FUZZ_MEMORY_MB", "0")))
    target.setup()
    protocol.write("READY\n")
    stdin = sys.stdin.buffer
    while (head := _read_exact(stdin, FRAME.size)) is not None:
        size, index = FRAME.unpack(head)
        data = _read_exact(stdin, size) or b""
        protocol.write(f"S {index}\n")
        try:
            outcome = target.run(data)
            protocol.write(f"R {index} {outcome.status} {outcome.code}\n")
        except Exception:  # noqa: BLE001 -- any exception the binding or the compiler lets out is the finding
            sys.stderr.write(traceback.format_exc())
            sys.stderr.flush()
            protocol.write(f"R {index} traceback 0\n")


# ---- the parent side ----------------------------------------------------------------------------------------

class Worker:
    """One worker subprocess; `run` returns (status, code, log text of the case)."""

    def __init__(self, script: Path, log_dir: Path, memory_mb: int) -> None:
        self.log_path = log_dir / f"worker-{time.monotonic_ns()}.log"
        self.log = self.log_path.open("wb+")
        env = {**os.environ, "ASCENDSIM_FUZZ_MEMORY_MB": str(memory_mb)}
        env.setdefault("ASCENDSIM_DEVICE_MEMORY", "256M")
        self.process = subprocess.Popen([sys.executable, str(script), "--worker"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=self.log, env=env, start_new_session=True)
        self.buffer = b""
        line = self._line(time.monotonic() + 120)
        if line != "READY":
            raise RuntimeError(f"the worker did not start: {line!r}\n{self._log_tail()}")

    def _line(self, deadline: float) -> str | None:
        """The next protocol line, None at EOF (the worker died) or at the deadline (a hang: 'TIMEOUT')."""
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return "TIMEOUT"
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                chunk = os.read(fd, 65536)
                if not chunk:
                    return None
                self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.decode()

    def _log_tail(self) -> str:
        self.log.flush()
        return self.log_path.read_bytes()[-4000:].decode(errors="replace")

    def run(self, index: int, data: bytes, timeout: float) -> tuple[str, int, bytes]:
        assert self.process.stdin is not None
        start = self.log.seek(0, os.SEEK_END)
        try:
            self.process.stdin.write(FRAME.pack(len(data), index) + data)
            self.process.stdin.flush()
        except BrokenPipeError:
            pass
        deadline = time.monotonic() + timeout
        status, code = "crash", 0
        while (line := self._line(deadline)) is not None:
            if line == "TIMEOUT":
                status = "hang"
                break
            parts = line.split()
            if parts[0] == "R" and int(parts[1]) == index:
                status, code = parts[2], int(parts[3])
                break
        if status in ("crash", "hang"):
            self.stop()
        self.log.flush()
        with self.log_path.open("rb") as log:
            log.seek(start)
            text = log.read()
        if status == "crash":
            text += f"\nworker exit status {self.process.returncode}\n".encode()
        if status not in ("crash", "hang", "traceback") and any(m in text for m in SANITIZER_MARKERS):
            status = "sanitizer"
        return status, code, text

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                with contextlib.suppress(BrokenPipeError):
                    stream.close()

    def close(self) -> None:
        assert self.process.stdin is not None
        if self.process.poll() is None:
            self.process.stdin.close()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(30)
        self.stop()
        self.log.close()


def _save(save: Path | None, target: Target, label: str, data: bytes, *, status: str, text: bytes) -> None:
    if save is None:
        return
    save.mkdir(parents=True, exist_ok=True)
    stem = save / f"{target.name}-{label}-{status}"
    stem.with_suffix(target.suffix).write_bytes(data)
    stem.with_suffix(".txt").write_bytes(text)


def fuzz(target: Target, script: Path, *, seed: int, cases: int, save: Path | None, memory_mb: int = 4096,
         seconds: float = 0.0, progress: bool = False, save_codes: frozenset[int] = frozenset()) -> Report:
    """Runs cases 0..cases-1 of `seed` (or as many as fit in `seconds` when that is > 0). Failing inputs, and
    inputs refused with one of `save_codes`, are written to `save`."""
    report = Report()
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=f"fuzz-{target.name}-") as logs:
        worker = Worker(script, Path(logs), memory_mb)
        try:
            for index in range(cases):
                if seconds and time.monotonic() - start > seconds:
                    break
                data = target.generate(random.Random(f"{seed}:{index}"), index)
                if not worker.alive():
                    worker.close()
                    worker = Worker(script, Path(logs), memory_mb)
                status, code, text = worker.run(index, data, target.timeout)
                report.cases += 1
                if status == "accepted":
                    report.accepted += 1
                elif status == "refused":
                    report.refused[code] += 1
                    if code in save_codes:
                        _save(save, target, f"seed{seed}-case{index}", data, status=f"refused{code}", text=text)
                else:
                    report.failures[status].append(index)
                    _save(save, target, f"seed{seed}-case{index}", data, status=status, text=text)
                    print(f"case {index}: {status}\n{text[-2000:].decode(errors='replace')}", file=sys.stderr)
                if status in ("crash", "hang"):
                    worker.close()
                    worker = Worker(script, Path(logs), memory_mb)
                if progress and report.cases % 1000 == 0:
                    print(f"... {report.cases} cases, {time.monotonic() - start:.0f} s", file=sys.stderr, flush=True)
        finally:
            worker.close()
    report.seconds = time.monotonic() - start
    return report


def replay(target: Target, script: Path, path: Path, memory_mb: int = 4096) -> tuple[str, int, str]:
    with tempfile.TemporaryDirectory(prefix=f"fuzz-{target.name}-") as logs:
        worker = Worker(script, Path(logs), memory_mb)
        try:
            status, code, text = worker.run(0, path.read_bytes(), target.timeout)
        finally:
            worker.close()
    return status, code, text.decode(errors="replace")


def main(target: Target, script: str, argv: Sequence[str] | None = None, *, default_cases: int = 1000) -> int:
    """The command line of every fuzzer: `--seed S --cases N [--save DIR]`, `--replay FILE`, `--worker`."""
    parser = argparse.ArgumentParser(description=f"the {target.name} fuzzer (see docs/fuzzing.md)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cases", type=int, default=default_cases)
    parser.add_argument("--seconds", type=float, default=0.0, help="stop after this long (0: no limit)")
    parser.add_argument("--save", type=Path, help="write each failing input (and what happened) here")
    parser.add_argument("--save-code", type=int, action="append", default=[],
                        help="also save the inputs refused with this code (repeatable)")
    parser.add_argument("--replay", type=Path, help="run one saved input and print its outcome")
    parser.add_argument("--memory-mb", type=int, default=4096, help="the workers' address-space cap (0: none)")
    parser.add_argument("--progress", action="store_true")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        serve(target)
        return 0
    if args.replay:
        status, code, text = replay(target, Path(script), args.replay, args.memory_mb)
        print(text, end="")
        print(f"{args.replay}: {status}" + (f" {code}" if status == "refused" else ""))
        return 1 if status in FAILURES else 0
    report = fuzz(target, Path(script), seed=args.seed, cases=args.cases, save=args.save, memory_mb=args.memory_mb,
                  seconds=args.seconds, progress=args.progress, save_codes=frozenset(args.save_code))
    print(f"{target.name} seed {args.seed}: {report.text()}")
    for kind, indices in report.failures.items():
        if indices:
            print(f"  {kind}: cases {indices[:20]}{' ...' if len(indices) > 20 else ''}")
    return 1 if report.failed() else 0
