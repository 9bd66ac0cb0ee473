"""The timeline profiler (docs/profiling.md): a known program (profiled_program.py: copies, events between two
streams, a multi-stream model run asynchronously and synchronously, a callback) is run in a fresh interpreter
with each way of turning profiling on; its trace is valid Chrome-trace JSON with the expected tracks and
spans, nested and ordered per track, node spans inside their model span, event waits ending after their
record, the device memory counter present, and a summary listing the op types. Also: the aclprof* misuse
codes, the aclInit `profiler` section's errors, and nothing recorded when profiling is off."""

from __future__ import annotations

import csv
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

import acl
import ascendsim
from acl_helpers import TESTS, Compiler, run_python
from ascendcl import (
    ACL_AICORE_NONE,
    ACL_ERROR_INVALID_PARAM,
    ACL_ERROR_INVALID_PROFILING_CONFIG,
    ACL_ERROR_PROF_ALREADY_RUN,
    ACL_ERROR_PROF_MODULES_UNSUPPORTED,
    ACL_ERROR_PROF_NOT_RUN,
    ACL_ERROR_REPEAT_INITIALIZE,
    ACL_PROF_TASK_TIME,
    ACL_SUCCESS,
    aclGetRecentErrMsg,
    aclprofCreateConfig,
    aclprofDestroyConfig,
    aclprofFinalize,
    aclprofInit,
    aclprofStart,
    aclprofStop,
)

sys.path.insert(0, str(TESTS / "compiler"))
from onnx_models import inception_block

Event = dict[str, Any]


@pytest.fixture(scope="module")
def model_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("prof_model")
    result = ascendsim.compile(inception_block(), str(directory / "inception"), soc_version="Ascend910B1",
                               precision_mode="force_fp32")
    return Path(result.output)


def run_program(switch: str, output: Path, model: Path, env: dict[str, str] | None = None) -> dict[str, int]:
    code = f"""
        import sys
        sys.path.insert(0, {str(TESTS)!r})
        from profiled_program import main
        main({switch!r}, {str(output)!r}, {str(model)!r})
    """
    result = run_python(code, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    ids: dict[str, int] = json.loads(result.stdout.strip().splitlines()[-1])
    return ids


class Trace:
    """A parsed trace: tracks by (pid, tid) with their names, the spans of each track, the counters."""

    def __init__(self, trace: dict[str, Any]) -> None:
        events: list[Event] = trace["traceEvents"]
        self.processes = {e["pid"]: e["args"]["name"] for e in events if e.get("name") == "process_name"}
        self.tracks = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e.get("name") == "thread_name"}
        self.spans: dict[tuple[int, int], list[Event]] = defaultdict(list)
        for e in events:
            if e["ph"] == "X":
                self.spans[(e["pid"], e["tid"])].append(e)
        self.counters = [e for e in events if e["ph"] == "C"]
        self.all_spans = [e for spans in self.spans.values() for e in spans]

    def named(self, name: str, category: str = "task") -> list[Event]:
        return [e for e in self.all_spans if e["name"] == name and e["cat"] == category]

    def track_of(self, span: Event) -> str:
        return self.tracks[(span["pid"], span["tid"])]


def end(span: Event) -> float:
    return float(span["ts"]) + float(span["dur"])


SLACK = 0.0015  # the file's microseconds carry 3 decimals: equal nanosecond times may differ by rounding


def check_nesting(spans: list[Event]) -> None:
    """Spans of one track form a proper tree: each one starts after its predecessor started and either
    lies inside every open span or starts after it ended."""
    ordered = sorted(spans, key=lambda e: (float(e["ts"]), -float(e["dur"])))
    open_spans: list[Event] = []
    for span in ordered:
        while open_spans and float(span["ts"]) >= end(open_spans[-1]) - SLACK:
            open_spans.pop()
        if open_spans:
            assert end(span) <= end(open_spans[-1]) + SLACK, (span, open_spans[-1])
        open_spans.append(span)


def check_summaries(output: Path, session: Path, nodes: list[Event]) -> None:
    """summary.txt, op_summary.csv and op_statistic.csv agree with the trace's node spans."""
    # msprof's CSV files: a row per node execution, a row per op type with the same counts.
    with open(session / "op_summary.csv", newline="") as file:
        rows = list(csv.DictReader(file))
    assert len(rows) == len(nodes) and {r["OP Type"] for r in rows} == {e["args"]["op_type"] for e in nodes}
    assert all(float(r["Task Duration(us)"]) >= 0 and float(r["Task Wait Time(us)"]) >= 0 for r in rows)
    with open(session / "op_statistic.csv", newline="") as file:
        counts = {r["OP Type"]: int(r["Count"]) for r in csv.DictReader(file)}
    assert counts == {t: sum(1 for e in nodes if e["args"]["op_type"] == t) for t in counts}
    assert sum(counts.values()) == len(nodes)

    summary = ascendsim.profile_summary(output)
    for op_type in ("Conv", "MaxPool", "Concat"):
        assert f"\n  {op_type} " in summary
    assert "aclmdlExecute " in summary and "MemcpyAsync HostToDevice" in summary
    cli = run_python(f"from ascendsim.__main__ import main; raise SystemExit(main(['prof-summary', {str(output)!r}]))")
    assert cli.returncode == 0 and "Op statistic" in cli.stdout and "trace.json" in cli.stdout, cli.stderr


@pytest.mark.parametrize("switch", ["json", "api", "env"])
def test_trace_of_the_known_program(switch: str, model_path: Path, tmp_path: Path) -> None:
    output = tmp_path / "prof"
    output.mkdir()
    env = {"ASCENDSIM_PROFILE": str(output)} if switch == "env" else {"ASCENDSIM_PROFILE": ""}
    env["ASCENDSIM_MODEL_STREAMS"] = "concurrent"  # the model's side streams on tracks of their own
    ids = run_program(switch, output, model_path, env)
    sessions = ascendsim.profiling.sessions(output)
    assert len(sessions) == 1
    trace = Trace(json.loads((sessions[0] / "trace.json").read_text()))  # valid JSON

    # Processes and tracks: the host with its API calls, device 0 with both streams, the model's streams.
    assert sorted(trace.processes.values()) == ["Device 0", "Host"]
    names = set(trace.tracks.values())
    assert any(name.startswith("host thread ") for name in names)
    stream_tracks = sorted(name for name in names if name.startswith("stream "))
    assert len(stream_tracks) == 2, names
    assert any(name.startswith("model '") and " stream " in name for name in names), names

    # Stream tasks: copies by kind with their bytes, the event record and wait, the model, the callback.
    h2d = trace.named("MemcpyAsync HostToDevice")
    assert [e["args"]["bytes"] for e in h2d] == [ids["copy_bytes"]]
    assert len(trace.named("MemcpyAsync DeviceToHost")) == 1
    [record], [wait] = trace.named("EventRecord"), trace.named("EventWait")
    assert trace.track_of(record) != trace.track_of(wait)
    assert record["args"]["event"] == wait["args"]["event"] and record["args"]["seq"] == wait["args"]["seq"]
    assert end(wait) >= end(record) - SLACK  # the wait ends once the record completed
    [task] = trace.named("ModelExecute")
    assert task["args"]["model"] == ids["model_id"] and trace.track_of(task) == trace.track_of(wait)
    assert len(trace.named("Callback")) == 1
    stream_b = [e for e in trace.spans[(task["pid"], task["tid"])] if e["cat"] == "task"]
    order = [e["name"] for e in sorted(stream_b, key=lambda e: float(e["ts"]))]
    assert order == ["EventWait", "ModelExecute", "MemcpyAsync DeviceToHost", "Callback"]

    # Two executions of the model (async in its stream task, then sync), each with a span per node.
    models = [e for e in trace.all_spans if e["cat"] == "model"]
    assert len(models) == 2
    async_model = next(m for m in models if trace.track_of(m) == trace.track_of(task))
    assert float(async_model["ts"]) >= float(task["ts"]) - SLACK and end(async_model) <= end(task) + SLACK
    nodes = [e for e in trace.all_spans if e["cat"] == "node"]
    assert nodes and all(e["args"]["op_type"] for e in nodes)
    for node in nodes:
        assert any(float(m["ts"]) - SLACK <= float(node["ts"]) and end(node) <= end(m) + SLACK for m in models), node
    assert {e["args"]["op_type"] for e in nodes} >= {"Conv", "MaxPool", "Concat"}  # Relu is fused into Conv
    assert len(nodes) % 2 == 0  # the same nodes in both executions
    model_events = [e for e in trace.all_spans if e["cat"] == "event"]
    assert {e["name"] for e in model_events} == {"EventRecord", "EventWait"}
    for wait_node in (e for e in model_events if e["name"] == "EventWait"):
        assert any(r["name"] == "EventRecord" and r["args"]["event"] == wait_node["args"]["event"]
                   and end(r) <= end(wait_node) + SLACK for r in model_events)

    for spans in trace.spans.values():
        check_nesting(spans)

    # Host API calls and the memory counter.
    api_names = {e["name"] for e in trace.all_spans if e["cat"] == "api"}
    assert {"aclrtMemcpyAsync", "aclrtRecordEvent", "aclrtStreamWaitEvent", "aclmdlExecuteAsync", "aclmdlExecute",
            "aclrtMalloc", "aclrtSynchronizeStream"} <= api_names
    allocated = [c["args"]["allocated"] for c in trace.counters if c["name"] == "device memory"]
    assert allocated and max(allocated) >= ids["copy_bytes"]
    assert all(c["args"]["reserved"] >= c["args"]["allocated"] for c in trace.counters)

    check_summaries(output, sessions[0], nodes)

def test_api_mode_records_only_what_the_config_asks(model_path: Path, tmp_path: Path) -> None:
    # ACL_PROF_ACL_API alone: host API calls, no stream task.
    output = tmp_path / "api_only"
    code = f"""
        from ascendcl import *
        assert aclInit("") == 0 and aclrtSetDevice(0) == 0
        assert aclprofInit({str(output)!r}, {len(str(output))}) == 0
        config = aclprofCreateConfig([0], ACL_AICORE_NONE, 0, ACL_PROF_ACL_API)
        assert aclprofStart(config) == 0
        stream, _ = aclrtCreateStream()
        assert aclrtSynchronizeStream(stream) == 0 and aclrtDestroyStream(stream) == 0
        assert aclprofStop(config) == 0
        stream, _ = aclrtCreateStream()  # after the stop: not recorded
        assert aclprofFinalize() == 0 and aclprofDestroyConfig(config) == 0
    """
    result = run_python(code)
    assert result.returncode == 0, result.stderr
    trace = Trace(ascendsim.load_trace(output))
    assert [e["name"] for e in sorted(trace.all_spans, key=lambda e: float(e["ts"]))] == [
        "aclrtCreateStream", "aclrtSynchronizeStream", "aclrtDestroyStream"]


def test_nothing_is_traced_when_off(model_path: Path, tmp_path: Path) -> None:
    output = tmp_path / "off"
    output.mkdir()
    run_program("off", output, model_path, {"ASCENDSIM_PROFILE": ""})
    assert list(output.iterdir()) == []


def test_misuse_codes(tmp_path: Path) -> None:
    path = str(tmp_path / "misuse")
    config = aclprofCreateConfig([0], ACL_AICORE_NONE, 0, ACL_PROF_TASK_TIME)
    assert config != 0
    assert aclprofStart(config) == ACL_ERROR_PROF_NOT_RUN  # before aclprofInit
    assert aclprofStop(config) == ACL_ERROR_PROF_NOT_RUN
    assert aclprofFinalize() == ACL_ERROR_PROF_NOT_RUN
    assert "aclprofInit first" in aclGetRecentErrMsg()
    assert aclprofInit(path, len(path) + 1) == ACL_ERROR_INVALID_PARAM
    assert "is not the length" in aclGetRecentErrMsg()
    assert aclprofInit(path, 0) == ACL_ERROR_INVALID_PARAM
    assert aclprofInit("/proc/no/such/dir", len("/proc/no/such/dir")) != ACL_SUCCESS
    assert aclprofInit(path, len(path)) == ACL_SUCCESS
    try:
        assert aclprofInit(path, len(path)) == ACL_ERROR_REPEAT_INITIALIZE
        assert aclprofStop(config) == ACL_ERROR_PROF_NOT_RUN  # stop without start
        assert "aclprofStart first" in aclGetRecentErrMsg()
        empty = aclprofCreateConfig([0], ACL_AICORE_NONE, 0, 0)
        assert aclprofStart(empty) == ACL_ERROR_INVALID_PARAM and aclprofDestroyConfig(empty) == ACL_SUCCESS
        unknown = aclprofCreateConfig([0], ACL_AICORE_NONE, 0, 1 << 40)
        assert aclprofStart(unknown) == ACL_ERROR_PROF_MODULES_UNSUPPORTED
        assert aclprofDestroyConfig(unknown) == ACL_SUCCESS
        assert aclprofStart(config) == ACL_SUCCESS
        assert aclprofStart(config) == ACL_ERROR_PROF_ALREADY_RUN
        assert aclprofStop(config) == ACL_SUCCESS
    finally:
        assert aclprofFinalize() == ACL_SUCCESS
    assert aclprofFinalize() == ACL_ERROR_PROF_NOT_RUN
    assert aclprofDestroyConfig(config) == ACL_SUCCESS
    assert aclprofDestroyConfig(config) == ACL_ERROR_INVALID_PARAM  # destroyed
    assert aclprofDestroyConfig(0) == ACL_ERROR_INVALID_PARAM
    assert aclprofStart(config) == ACL_ERROR_INVALID_PARAM


@pytest.mark.parametrize(("devices", "metrics", "events", "message"), [
    ([], ACL_AICORE_NONE, 0, "deviceNums 0"),
    ([99], ACL_AICORE_NONE, 0, "deviceIdList[0] = 99"),
    ([0, 0], ACL_AICORE_NONE, 0, "listed twice"),
    ([0], 77, 0, "aicoreMetrics 77"),
    ([0], ACL_AICORE_NONE, 8, "aicoreEvents must be NULL"),
])
def test_create_config_refuses_bad_arguments(devices: list[int], metrics: int, events: int, message: str) -> None:
    assert aclprofCreateConfig(devices, metrics, events, ACL_PROF_TASK_TIME) == 0
    assert message in aclGetRecentErrMsg()


def test_pyacl_face() -> None:
    assert acl.prof.create_config is aclprofCreateConfig and acl.prof.finalize is aclprofFinalize
    assert acl.prof.start(0) == ACL_ERROR_PROF_NOT_RUN
    with pytest.raises(TypeError):
        acl.prof.init(None)  # type: ignore[arg-type]
    assert acl.prof.get_op_type_v2(0, 0, 0)[0] is None


def test_command_line_mode_excludes_the_api(tmp_path: Path) -> None:
    code = """
        from ascendcl import *
        assert aclInit("") == 0
        assert aclprofInit("x", 1) == ACL_ERROR_PROF_ALREADY_RUN
        assert aclprofStart(0) == ACL_ERROR_PROF_ALREADY_RUN
        assert aclprofFinalize() == ACL_ERROR_PROF_ALREADY_RUN
        assert aclFinalize() == 0
    """
    result = run_python(code, env={"ASCENDSIM_PROFILE": str(tmp_path / "cmd")})
    assert result.returncode == 0, result.stderr
    assert len(ascendsim.profiling.sessions(tmp_path / "cmd")) == 1


@pytest.mark.parametrize(("section", "message"), [
    ({"switch": "yes"}, '"switch" must be "on" or "off"'),
    ({"switch": "on", "output": 3}, '"output" must be a non-empty directory path'),
    ({"switch": "on", "task_time": "maybe"}, '"task_time" must be one of'),
    ("on", "must be a JSON object"),
])
def test_init_profiler_section_errors(tmp_path: Path, section: object, message: str) -> None:
    config = tmp_path / "acl.json"
    config.write_text(json.dumps({"profiler": section}))
    code = f"""
        from ascendcl import aclInit, aclGetRecentErrMsg
        print(aclInit({str(config)!r})); print(aclGetRecentErrMsg())
    """
    result = run_python(code, env={"ASCENDSIM_PROFILE": ""})
    ret, text = result.stdout.split("\n", 1)
    assert int(ret) == ACL_ERROR_INVALID_PROFILING_CONFIG and message in text, result.stdout + result.stderr


def test_cann_environment_switch(model_path: Path, tmp_path: Path) -> None:
    output = tmp_path / "msprof"
    env = {"ASCENDSIM_PROFILE": "", "PROFILING_MODE": "true",
           "PROFILING_OPTIONS": json.dumps({"output": str(output), "task_time": "on", "ascendcl": "off"})}
    run_program("off", tmp_path, model_path, env)
    trace = Trace(ascendsim.load_trace(output))
    assert trace.named("ModelExecute") and not [e for e in trace.all_spans if e["cat"] == "api"]
    bad = run_python("from ascendcl import aclInit; print(aclInit(''))",
                     env={"ASCENDSIM_PROFILE": "", "PROFILING_MODE": "true", "PROFILING_OPTIONS": "{"})
    assert int(bad.stdout) == ACL_ERROR_INVALID_PROFILING_CONFIG


def test_c_program(compiler: Compiler, tmp_path: Path) -> None:
    program = compiler.build(TESTS / "c" / "prof_flow.c")
    output = tmp_path / "c_prof"
    result = compiler.run(program, str(output), env={"ASCENDSIM_PROFILE": ""})
    assert result.returncode == 0 and result.stdout.startswith("ok"), result.stdout + result.stderr
    trace = Trace(ascendsim.load_trace(output))
    [copy] = trace.named("MemcpyAsync HostToDevice")
    assert copy["args"]["bytes"] == 1 << 16 and len(trace.named("EventRecord")) == 1
    assert "aclrtSynchronizeEvent" in {e["name"] for e in trace.all_spans if e["cat"] == "api"}


def test_switching_on_and_off_while_threads_work(tmp_path: Path) -> None:
    # Streams and host threads keep working while collections start, stop and finish: no crash, no lost
    # session, every trace valid (the buffer and the tracks are shared by all of them).
    output = tmp_path / "race"
    code = f"""
        import threading
        from ascendcl import *
        assert aclInit("") == 0 and aclrtSetDevice(0) == 0
        context, _ = aclrtGetCurrentContext()
        stop = threading.Event()

        def work():
            assert aclrtSetCurrentContext(context) == 0
            stream, _ = aclrtCreateStream()
            host, _ = aclrtMallocHost(4096)
            while not stop.is_set():
                device, _ = aclrtMalloc(4096, 0)
                assert aclrtMemcpyAsync(device, 4096, host, 4096, ACL_MEMCPY_HOST_TO_DEVICE, stream) == 0
                assert aclrtSynchronizeStream(stream) == 0 and aclrtFree(device) == 0
            assert aclrtFreeHost(host) == 0 and aclrtDestroyStream(stream) == 0

        threads = [threading.Thread(target=work) for _ in range(3)]
        for t in threads:
            t.start()
        for _ in range(20):
            assert aclprofInit({str(output)!r}, {len(str(output))}) == 0
            config = aclprofCreateConfig([0], ACL_AICORE_NONE, 0, ACL_PROF_ACL_API | ACL_PROF_TASK_TIME)
            assert aclprofStart(config) == 0 and aclprofStop(config) == 0
            assert aclprofStart(config) == 0  # finalize stops it
            assert aclprofFinalize() == 0 and aclprofDestroyConfig(config) == 0
        stop.set()
        for t in threads:
            t.join()
        assert aclrtResetDevice(0) == 0 and aclFinalize() == 0
    """
    result = run_python(code, env={"ASCENDSIM_PROFILE": ""})
    assert result.returncode == 0, result.stderr
    found = ascendsim.profiling.sessions(output)
    assert len(found) == 20
    for session in found:
        trace = Trace(ascendsim.load_trace(session))
        for spans in trace.spans.values():
            check_nesting(spans)


def test_msproftx_marks_and_ranges(tmp_path: Path) -> None:
    output = tmp_path / "tx"
    code = f"""
        import threading
        from ascendcl import *
        assert aclInit("") == 0 and aclrtSetDevice(0) == 0
        assert aclprofCreateStamp() == 0 and "msproftx" in aclGetRecentErrMsg()  # nothing collects
        assert aclprofPop() == ACL_ERROR_PROF_NOT_RUN and aclprofRangeStop(1) == ACL_ERROR_PROF_NOT_RUN
        assert aclprofInit({str(output)!r}, {len(str(output))}) == 0
        config = aclprofCreateConfig([0], ACL_AICORE_NONE, 0, ACL_PROF_ACL_API | ACL_PROF_MSPROFTX)
        assert aclprofStart(config) == 0
        outer, inner = aclprofCreateStamp(), aclprofCreateStamp()
        assert outer and inner
        assert aclprofSetStampTraceMessage(outer, "outer", 5) == 0
        assert aclprofSetStampTraceMessage(inner, "range", 5) == 0
        assert aclprofSetStampTraceMessage(inner, "x" * 128, 128) == ACL_ERROR_INVALID_PARAM
        assert aclprofPush(outer) == 0
        stream, _ = aclrtCreateStream()
        assert aclprofMark(outer) == 0
        range_id, ret = aclprofRangeStart(inner)
        assert ret == 0
        ended = []
        thread = threading.Thread(target=lambda: ended.append(aclprofRangeStop(range_id)))  # ends elsewhere
        thread.start(); thread.join()
        assert ended == [0] and aclprofRangeStop(range_id) == ACL_ERROR_INVALID_PARAM
        assert aclrtDestroyStream(stream) == 0
        assert aclprofPop() == 0
        assert aclprofPop() == ACL_ERROR_INVALID_PARAM and "aclprofPush" in aclGetRecentErrMsg()
        assert aclprofDestroyStamp(outer) is None and aclprofMark(outer) == ACL_ERROR_INVALID_PARAM
        assert aclprofPush(0) == ACL_ERROR_INVALID_PARAM
        aclprofDestroyStamp(inner)
        assert aclprofStop(config) == 0 and aclprofFinalize() == 0 and aclprofDestroyConfig(config) == 0
    """
    result = run_python(code, env={"ASCENDSIM_PROFILE": ""})
    assert result.returncode == 0, result.stderr
    events = ascendsim.load_trace(output)["traceEvents"]
    [mark] = [e for e in events if e["ph"] == "i"]
    assert mark["name"] == "outer" and mark["cat"] == "msproftx"
    [pushed] = [e for e in events if e["ph"] == "X" and e["cat"] == "msproftx"]
    api = {e["name"]: e for e in events if e["ph"] == "X" and e["cat"] == "api"}
    for name in ("aclrtCreateStream", "aclrtDestroyStream"):
        assert (api[name]["tid"], api[name]["pid"]) == (pushed["tid"], pushed["pid"])
        assert float(pushed["ts"]) <= float(api[name]["ts"]) and end(api[name]) <= end(pushed)
    assert float(pushed["ts"]) <= float(mark["ts"]) <= end(pushed)
    begin, finish = ([e for e in events if e["ph"] == phase and e["name"] == "range"] for phase in "be")
    assert len(begin) == len(finish) == 1 and begin[0]["id"] == finish[0]["id"]
    assert float(begin[0]["ts"]) <= float(finish[0]["ts"])
    summary = ascendsim.profile_summary(output)
    assert "User ranges" in summary and "\n  outer " in summary and "\n  range " in summary


def test_leaked_configs_and_stamps_are_reported(tmp_path: Path) -> None:
    output = tmp_path / "leaky"
    code = f"""
        from ascendcl import *
        assert aclInit("") == 0
        assert aclprofInit({str(output)!r}, {len(str(output))}) == 0
        config = aclprofCreateConfig([0], ACL_AICORE_NONE, 0, ACL_PROF_MSPROFTX)
        assert aclprofStart(config) == 0 and aclprofCreateStamp() != 0
        assert aclFinalize() == 0  # finalizes the collection too; the config and the stamp stay leaked
    """
    result = run_python(code, env={"ASCENDSIM_PROFILE": "", "ASCEND_SLOG_PRINT_TO_STDOUT": "1",
                                   "ASCEND_GLOBAL_LOG_LEVEL": "2"})
    assert result.returncode == 0, result.stderr
    assert "leaked profiling config" in result.stdout and "created by aclprofCreateConfig" in result.stdout
    assert "leaked msproftx stamp" in result.stdout and "created by aclprofCreateStamp" in result.stdout
    assert len(ascendsim.profiling.sessions(output)) == 1


def test_single_operators_are_stream_tasks_named_by_op_type(tmp_path: Path) -> None:
    code = f"""
        import sys
        import numpy as np
        sys.path.insert(0, {str(Path(__file__).parent / "op")!r})
        from op_helpers import Out, run_op
        from ascendcl import *
        assert aclInit("") == 0 and aclrtSetDevice(0) == 0
        stream, _ = aclrtCreateStream()
        a = np.arange(8, dtype=np.float32).reshape(2, 4)
        (out,) = run_op("Add", [a, a], [Out(np.float32, [2, 4])], None, stream)
        assert (out == 2 * a).all()
        (out,) = run_op("Relu", [a - 3], [Out(np.float32, [2, 4])], None, stream)
        assert (out == np.maximum(a - 3, 0)).all()
        assert aclrtDestroyStream(stream) == 0 and aclrtResetDevice(0) == 0 and aclFinalize() == 0
    """
    result = run_python(code, env={"ASCENDSIM_PROFILE": str(tmp_path / "ops")})
    assert result.returncode == 0, result.stderr
    trace = Trace(ascendsim.load_trace(tmp_path / "ops"))
    for op_type in ("Add", "Relu"):
        (span,) = trace.named(op_type)
        assert trace.track_of(span).startswith("stream "), trace.track_of(span)
