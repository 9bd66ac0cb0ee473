"""Leak reports: a program that leaks one object of every kind gets exactly those objects reported (log and
ascendsim.leak_report()), one that releases everything gets an empty report; C and Python programs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from model.exec_helpers import add_relu_add, compile_model

from acl_helpers import Compiler, run_python

LOG_ENV = {"ASCEND_SLOG_PRINT_TO_STDOUT": "1", "ASCEND_GLOBAL_LOG_LEVEL": "2"}
LEAK_LINE = re.compile(r"\[WARNING\] .*?(aclFinalize|aclrtResetDevice)(?: of device (\d+))?: leaked ([a-z ]+?) "
                       r"(0x[0-9a-f]+|id \d+)")

# One object of each kind: (kind, creating API, Python expression, destroying statement).
PY_LEAKS = [
    ("allocation", "aclrtMalloc", "ascendcl.aclrtMalloc(1000, 0)[0]", "ascendcl.aclrtFree({h})"),
    ("stream", "aclrtCreateStream", "ascendcl.aclrtCreateStream()[0]", "ascendcl.aclrtDestroyStream({h})"),
    ("event", "aclrtCreateEvent", "ascendcl.aclrtCreateEvent()[0]", "ascendcl.aclrtDestroyEvent({h})"),
    ("data buffer", "aclCreateDataBuffer", "ascendcl.aclCreateDataBuffer(0, 0)", "ascendcl.aclDestroyDataBuffer({h})"),
    ("dataset", "aclmdlCreateDataset", "ascendcl.aclmdlCreateDataset()", "ascendcl.aclmdlDestroyDataset({h})"),
    ("tensor desc", "aclCreateTensorDesc", "acl.create_tensor_desc(0, [2, 3], 2)",
     "ascendcl.aclDestroyTensorDesc({h})"),
    ("op attr", "aclopCreateAttr", "ascendcl.aclopCreateAttr()", "ascendcl.aclopDestroyAttr({h})"),
    ("model desc", "aclmdlCreateDesc", "ascendcl.aclmdlCreateDesc()", "ascendcl.aclmdlDestroyDesc({h})"),
    ("model config handle", "aclmdlCreateConfigHandle", "ascendcl.aclmdlCreateConfigHandle()",
     "ascendcl.aclmdlDestroyConfigHandle({h})"),
    ("exec config handle", "aclmdlCreateExecConfigHandle", "ascendcl.aclmdlCreateExecConfigHandle()",
     "ascendcl.aclmdlDestroyExecConfigHandle({h})"),
    ("model", "aclmdlLoadFromFile", "ascendcl.aclmdlLoadFromFile(OM)[0]", "ascendcl.aclmdlUnload({h})"),
    ("context", "aclrtCreateContext", "ascendcl.aclrtCreateContext(0)[0]", "ascendcl.aclrtDestroyContext({h})"),
]


@pytest.fixture(scope="module")
def om(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compile_model(add_relu_add(), tmp_path_factory.mktemp("leaks"), "leaky")


def python_program(om: Path, leak: bool, reset: bool) -> str:
    lines = ["import json, acl, ascendcl, ascendsim", f"OM = {str(om)!r}", "ascendcl.aclInit('')", "ascendcl.aclrtSetDevice(0)",
             "made = []"]
    for kind, _, create, _ in PY_LEAKS:
        lines.append(f"made.append(({kind!r}, {create}))")
    if not leak:
        for index in reversed(range(len(PY_LEAKS))):
            lines.append(PY_LEAKS[index][3].format(h=f"made[{index}][1]"))
    if reset:
        lines += ["ascendcl.aclrtResetDevice(0)", "print('RESET', json.dumps(ascendsim.leak_report()))"]
    lines += ["ascendcl.aclFinalize()", "print('FINAL', json.dumps(ascendsim.leak_report()))",
              "print('MADE', json.dumps(made))"]
    return "\n".join(lines)


def reported(stdout: str, tag: str) -> dict:
    line = next(line for line in stdout.splitlines() if line.startswith(tag + " "))
    return json.loads(line[len(tag) + 1:])


def user_objects(report: dict) -> set[tuple[str, int]]:
    """(kind, handle or model id) of each reported object, the models' own memory left out."""
    return {(o["kind"], o["id"] if o["kind"] == "model" else o["handle"]) for o in report["objects"]
            if o["kind"] != "model memory"}


def test_python_program_leaking_one_of_each_kind(om: Path) -> None:
    result = run_python(python_program(om, leak=True, reset=False), env=LOG_ENV)
    assert result.returncode == 0, result.stderr
    made = {(kind, handle) for kind, handle in reported(result.stdout, "MADE")}
    final = reported(result.stdout, "FINAL")
    assert final["trigger"] == "aclFinalize" and final["device"] == -1
    assert user_objects(final) == made
    by_kind = {o["kind"]: o for o in final["objects"]}
    assert {kind: by_kind[kind]["api"] for kind, *_ in PY_LEAKS} == {kind: api for kind, api, *_ in PY_LEAKS}
    assert by_kind["allocation"]["size"] == 1000 and by_kind["allocation"]["device"] == 0
    assert by_kind["stream"]["device"] == 0 and by_kind["event"]["device"] == -1
    # The model's weights / feature map are reported as its memory, made by the loading API.
    assert {o["api"] for o in final["objects"] if o["kind"] == "model memory"} == {"aclmdlLoadFromFile"}
    seqs = [o["seq"] for o in final["objects"]]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    # The log has the same objects, one warning line each, and a summary.
    logged = {(m[3], int(m[4][3:]) if m[4].startswith("id ") else int(m[4], 16))
              for m in LEAK_LINE.finditer(result.stdout) if m[3] != "model memory"}
    assert logged == made
    assert re.search(rf"aclFinalize: {len(final['objects'])} leaked objects \(", result.stdout)


def test_last_reset_reports_the_device_objects_and_finalize_the_rest(om: Path) -> None:
    result = run_python(python_program(om, leak=True, reset=True), env=LOG_ENV)
    assert result.returncode == 0, result.stderr
    made = {(kind, handle) for kind, handle in reported(result.stdout, "MADE")}
    reset, final = reported(result.stdout, "RESET"), reported(result.stdout, "FINAL")
    assert reset["trigger"] == "aclrtResetDevice" and reset["device"] == 0
    on_device = {"allocation", "stream", "context", "model"}
    assert user_objects(reset) == {(k, h) for k, h in made if k in on_device}
    # The reset released the device's contexts, streams and memory; the model stays loaded (GE keeps it).
    assert user_objects(final) == {(k, h) for k, h in made if k not in on_device or k == "model"}


@pytest.mark.parametrize("reset", [False, True])
def test_python_program_leaking_nothing_gets_an_empty_report(om: Path, reset: bool) -> None:
    result = run_python(python_program(om, leak=False, reset=reset), env=LOG_ENV)
    assert result.returncode == 0, result.stderr
    assert reported(result.stdout, "FINAL")["objects"] == []
    if reset:
        assert reported(result.stdout, "RESET")["objects"] == []
    assert "leaked" not in result.stdout


def test_live_report_and_no_report_yet() -> None:
    result = run_python("""
        import json, ascendcl, ascendsim
        print(json.dumps(ascendsim.leak_report()))
        ascendcl.aclInit('')
        ascendcl.aclrtSetDevice(0)
        stream, _ = ascendcl.aclrtCreateStream()
        live = ascendsim.leak_report(live=True)
        assert live["trigger"] is None and [(o["kind"], o["handle"]) for o in live["objects"]] == [("stream", stream)]
        assert live["summary"] == {"stream": 1}
        assert "live now: leaked stream" in ascendsim.format_leak_report(live)
        ascendcl.aclrtDestroyStream(stream)
        assert ascendsim.format_leak_report(ascendsim.leak_report(live=True)) == "live now: no leaks"
    """)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"trigger": None, "device": -1, "objects": [], "summary": {}}


C_PROGRAM = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "acl/acl.h"
#include "ascendsim/ascendsim_ext.h"

int main(int argc, char** argv) {
  if (argc != 3) return 9;
  const int leak = strcmp(argv[1], "leak") == 0;
  if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) return 1;
  void* memory = NULL;
  aclrtStream stream = NULL;
  aclrtEvent event = NULL;
  aclrtContext context = NULL;
  uint32_t model = 0;
  if (aclrtMalloc(&memory, 1000, ACL_MEM_MALLOC_HUGE_FIRST) || aclrtCreateStream(&stream) ||
      aclrtCreateEvent(&event) || aclmdlLoadFromFile(argv[2], &model))
    return 2;
  aclDataBuffer* buffer = aclCreateDataBuffer(memory, 1000);
  aclmdlDataset* dataset = aclmdlCreateDataset();
  int64_t dims[2] = {2, 3};
  aclTensorDesc* desc = aclCreateTensorDesc(ACL_FLOAT, 2, dims, ACL_FORMAT_ND);
  aclopAttr* attr = aclopCreateAttr();
  aclmdlDesc* model_desc = aclmdlCreateDesc();
  aclmdlConfigHandle* config = aclmdlCreateConfigHandle();
  aclmdlExecConfigHandle* exec_config = aclmdlCreateExecConfigHandle();
  if (aclrtCreateContext(&context, 0)) return 3;
  printf("allocation %p\nstream %p\nevent %p\nmodel id %u\ndata buffer %p\ndataset %p\ntensor desc %p\n"
         "op attr %p\nmodel desc %p\nmodel config handle %p\nexec config handle %p\ncontext %p\n",
         memory, stream, event, model, (void*)buffer, (void*)dataset, (void*)desc, (void*)attr, (void*)model_desc,
         (void*)config, (void*)exec_config, context);
  fflush(stdout);
  if (!leak) {
    aclrtDestroyContext(context);
    aclmdlDestroyExecConfigHandle(exec_config);
    aclmdlDestroyConfigHandle(config);
    aclmdlDestroyDesc(model_desc);
    aclopDestroyAttr(attr);
    aclDestroyTensorDesc(desc);
    aclmdlDestroyDataset(dataset);
    aclDestroyDataBuffer(buffer);
    aclmdlUnload(model);
    aclrtDestroyEvent(event);
    aclrtDestroyStream(stream);
    aclrtFree(memory);
  }
  if (aclFinalize() != ACL_SUCCESS) return 4;
  size_t length = 0;
  if (ascendsimGetLeakReport(0, NULL, 0, &length) != ACL_SUCCESS) return 5;
  char* json = malloc(length + 1);
  char small[4];
  if (length > 3 && ascendsimGetLeakReport(0, small, sizeof small, &length) != ACL_ERROR_INVALID_PARAM) return 6;
  if (ascendsimGetLeakReport(0, json, length + 1, &length) != ACL_SUCCESS || strlen(json) != length) return 7;
  if (ascendsimGetLeakReport(0, NULL, 10, &length) != ACL_ERROR_INVALID_PARAM ||
      ascendsimGetLeakReport(1, NULL, 0, NULL) != ACL_ERROR_INVALID_PARAM ||
      ascendsimGetMemorySnapshot(0, NULL, 0, NULL) != ACL_ERROR_INVALID_PARAM ||
      ascendsimGetMemorySnapshot(64, NULL, 0, &length) != ACL_ERROR_RT_INVALID_DEVICEID)
    return 8;
  printf("REPORT %s\n", json);
  free(json);
  return 0;
}
"""

C_MADE = re.compile(r"^([a-z ]+?) (0x[0-9a-f]+|id \d+)$", re.MULTILINE)


@pytest.mark.parametrize("leak", [True, False])
def test_c_program(compiler: Compiler, om: Path, leak: bool) -> None:
    program = compiler.build(C_PROGRAM, name="leaks")
    result = compiler.run(program, "leak" if leak else "clean", str(om), env=LOG_ENV)
    assert result.returncode == 0, (result.returncode, result.stdout, result.stderr)
    made = set(C_MADE.findall(result.stdout))
    assert len(made) == len(PY_LEAKS)
    logged = {(m[3], m[4]) for m in LEAK_LINE.finditer(result.stdout) if m[3] != "model memory"}
    assert logged == (made if leak else set())
    report = json.loads(next(line for line in result.stdout.splitlines() if line.startswith("REPORT "))[7:])
    expected = {(kind, int(h[3:]) if h.startswith("id ") else int(h, 16)) for kind, h in made} if leak else set()
    assert user_objects(report) == expected


def test_error_paths() -> None:
    result = run_python("""
        import ascendcl, ascendsim
        from ascendsim import _core
        assert _core.ascendsimGetMemorySnapshot(99) == ("", ascendcl.ACL_ERROR_RT_INVALID_DEVICEID)
        assert "device id 99 is out of range" in ascendcl.aclGetRecentErrMsg()
        try:
            ascendsim.memory_snapshot(-1)
        except RuntimeError as error:
            assert "device id -1" in str(error)
        else:
            raise AssertionError("no error")
    """)
    assert result.returncode == 0, result.stderr
