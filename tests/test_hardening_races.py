"""Hardening: races and teardown found by attacking the runtime from several threads at once.

- A record and a stream wait on the same event and stream, issued by two threads at the same moment: the
  wait must never end up waiting for a record queued behind it (the stream used to hang forever).
- A chaos driver: threads creating, destroying, recording, waiting, synchronizing, subscribing, launching
  callbacks, allocating and resetting the device all at once, on shared handles that other threads destroy
  meanwhile. It must finish (no deadlock) and never crash; built from the sources under ThreadSanitizer too.
- Exception-info pointers are valid only while the exception callback runs: stale or made-up ones are an
  error, not a read through a wild pointer.
- aclInit/aclFinalize cycles leak no threads and no handles.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from kernel_build import build_variant_objects, run_compiles
from library_build import library_sources

from acl_helpers import ROOT, Compiler, require_sanitizer, run_python

RECORD_RACING_WAIT = r"""
// aclrtRecordEvent on one thread racing aclrtStreamWaitEvent on another, same stream and event: the wait
// must never end up waiting for a record queued behind it (the stream would hang forever).
#include <atomic>
#include <cstdio>
#include <thread>
#include "acl/acl.h"

int main() {
  if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) return 2;
  aclrtContext context = nullptr;
  aclrtGetCurrentContext(&context);
  int hung = 0;
  for (int i = 0; i < 400 && hung == 0; ++i) {
    aclrtStream stream = nullptr;
    aclrtEvent event = nullptr;
    if (aclrtCreateStream(&stream) != ACL_SUCCESS || aclrtCreateEvent(&event) != ACL_SUCCESS) return 2;
    std::atomic<int> ready{0};
    std::thread recorder([&] {
      aclrtSetCurrentContext(context);
      ready.fetch_add(1);
      while (ready.load() < 2) {}
      aclrtRecordEvent(event, stream);  // the first enqueue on the stream starts its worker: a wide window
    });
    ready.fetch_add(1);
    while (ready.load() < 2) {}
    for (int spin = 0; spin < (i % 64) * 20; ++spin) std::atomic_signal_fence(std::memory_order_seq_cst);
    aclrtStreamWaitEvent(stream, event);
    recorder.join();
    if (aclrtSynchronizeStreamWithTimeout(stream, 5000) == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT) {
      hung = i + 1;
      aclrtDestroyStreamForce(stream);
    } else {
      aclrtDestroyStream(stream);
    }
    aclrtDestroyEvent(event);
  }
  aclrtResetDevice(0);
  aclFinalize();
  if (hung != 0) {
    std::printf("HUNG at iteration %d\n", hung);
    return 1;
  }
  std::printf("OK\n");
  return 0;
}
"""

CHAOS = r"""
// Chaos driver: many threads hammering streams, events, callbacks, memory, destroy/reset, from one seed.
#include <atomic>
#include <cstdio>
#include <cstring>
#include <pthread.h>
#include <random>
#include <thread>
#include <vector>
#include "acl/acl.h"

static std::atomic<bool> stop{false};
static std::atomic<long> ops{0};
static std::atomic<aclrtStream> shared_streams[8];
static std::atomic<aclrtEvent> shared_events[8];
static std::atomic<uint64_t> reporter_tid{0};
static std::atomic<int> counter{0};
static std::atomic<aclDataBuffer*> shared_buffers[4];
static void cb(void* p) { if (p) static_cast<std::atomic<int>*>(p)->fetch_add(1); }
static void exc(aclrtExceptionInfo* info) { (void)aclrtGetTaskIdFromExceptionInfo(info); }

static void reporter() {
  reporter_tid = (uint64_t)pthread_self();
  while (!stop) if (aclrtProcessReport(5) != ACL_SUCCESS) std::this_thread::yield();
}

static void worker(int id, int device) {
  std::mt19937 rng(id * 7919 + 1);
  aclrtSetDevice(device);

  std::vector<void*> mine;
  while (!stop) {
    int op = rng() % 17;
    aclrtStream s = shared_streams[rng() % 8];
    aclrtEvent e = shared_events[rng() % 8];
    switch (op) {
      case 0: { aclrtStream n; if (aclrtCreateStream(&n) == 0) { shared_streams[rng() % 8] = n; } break; }
      case 1: aclrtDestroyStream(s); break;
      case 2: aclrtDestroyStreamForce(s); break;
      case 3: { aclrtEvent n; if (aclrtCreateEvent(&n) == 0) shared_events[rng() % 8] = n; break; }
      case 4: aclrtDestroyEvent(e); break;
      case 5: aclrtRecordEvent(e, s); break;
      case 6: aclrtStreamWaitEvent(s, e); break;
      case 7: aclrtSynchronizeStreamWithTimeout(s, 50); break;
      case 8: aclrtSynchronizeEventWithTimeout(e, 50); break;
      case 9: { void* p; if (aclrtMalloc(&p, 1 + rng() % 5000, ACL_MEM_MALLOC_HUGE_FIRST) == 0) mine.push_back(p); break; }
      case 10: if (!mine.empty()) { void* p = mine.back(); mine.pop_back(); aclrtMemset(p, 1, 0, 1); aclrtFree(p); } break;
      case 11: { uint64_t t = reporter_tid; if (t) aclrtSubscribeReport(t, s); break; }
      case 12: { uint64_t t = reporter_tid; if (t) aclrtUnSubscribeReport(t, s); break; }
      case 13: aclrtLaunchCallback(cb, &counter, rng() % 2 ? ACL_CALLBACK_BLOCK : ACL_CALLBACK_NO_BLOCK, s); break;
      case 14: if (rng() % 50 == 0) { aclrtResetDevice(device); aclrtSetDevice(device); mine.clear(); } break;
      case 16: {  // data buffers destroyed while other threads read them
        std::atomic<aclDataBuffer*>& slot = shared_buffers[rng() % 4];
        if (rng() % 2) aclDestroyDataBuffer(slot.exchange(aclCreateDataBuffer(nullptr, rng() % 100)));
        else { aclDataBuffer* b = slot.load(); aclGetDataBufferSizeV2(b); aclGetDataBufferAddr(b); aclUpdateDataBuffer(b, nullptr, 1); }
        break;
      }
      case 15: { aclrtSetStreamFailureMode(s, rng() % 2); float ms; aclrtEventElapsedTime(&ms, e, shared_events[rng()%8]); aclrtQueryEventStatus(e, nullptr); aclrtEventRecordedStatus st; aclrtQueryEventStatus(e, &st); break; }
    }
    aclGetRecentErrMsg();
    ++ops;
  }
  // Callbacks hold &counter: make sure none is still queued before it goes away.
  for (auto& st : shared_streams) aclrtSynchronizeStreamWithTimeout(st, 1000);
  aclrtResetDevice(device);
}

int main(int argc, char** argv) {
  int seconds = argc > 1 ? atoi(argv[1]) : 3;
  aclInit(nullptr);
  aclrtSetExceptionInfoCallback(exc);
  aclrtSetDevice(0);
  for (auto& s : shared_streams) { aclrtStream n; aclrtCreateStream(&n); s = n; }
  for (auto& e : shared_events) { aclrtEvent n; aclrtCreateEvent(&n); e = n; }
  std::thread rep(reporter);
  std::vector<std::thread> threads;
  for (int i = 0; i < 6; ++i) threads.emplace_back(worker, i, 0);
  std::this_thread::sleep_for(std::chrono::seconds(seconds));
  stop = true;
  for (auto& t : threads) t.join();
  rep.join();
  aclrtResetDeviceForce(0);
  aclFinalize();
  std::printf("OK %ld ops\n", ops.load());
  return 0;
}
"""


def test_record_racing_a_stream_wait_on_the_same_stream_never_hangs(compiler: Compiler) -> None:
    program = compiler.build(RECORD_RACING_WAIT, name="record_racing_wait", cxx=True)
    result = compiler.run(program, timeout=300)
    assert result.returncode == 0 and result.stdout.strip() == "OK", result.stdout + result.stderr


def test_chaos_threads_never_crash_or_hang(compiler: Compiler) -> None:
    program = compiler.build(CHAOS, name="chaos", cxx=True)
    result = compiler.run(program, "2", timeout=120)
    assert result.returncode == 0 and result.stdout.startswith("OK"), result.stdout + result.stderr


def test_chaos_under_thread_sanitizer(tmp_path: Path) -> None:
    require_sanitizer(tmp_path, "-fsanitize=thread")
    source = tmp_path / "chaos.cpp"
    source.write_text(CHAOS)
    import scipy_openblas32

    # every library source (the API files call into model/, kernels/ and executor/); g++ builds the .c as C++
    tsan = ["-std=c++17", "-O1", "-g", "-fsanitize=thread", f"-I{ROOT / 'include'}", f"-I{ROOT / 'csrc'}",
            f"-isystem{scipy_openblas32.get_include_dir()}"]
    (tmp_path / "objects").mkdir()
    sources = [source, *library_sources()]
    objects = [tmp_path / "objects" / f"{index}_{path.stem}.o" for index, path in enumerate(sources)]
    run_compiles([["g++", *tsan, "-c", str(path), "-o", str(obj)] for path, obj in zip(sources, objects)])
    objects += build_variant_objects(tmp_path / "variants", ["-O1", "-g", "-fsanitize=thread"])
    program = tmp_path / "chaos_tsan"
    blas = scipy_openblas32.get_lib_dir()
    command = ["g++", "-fsanitize=thread", *map(str, objects), "-o", str(program), f"-L{blas}", "-lscipy_openblas",
               f"-Wl,-rpath,{blas}", "-lpthread"]
    built = subprocess.run(command, capture_output=True, text=True, check=False)
    assert built.returncode == 0, built.stderr
    # Once as it is, once with the profiler recording everything (docs/profiling.md) from every thread.
    for profile in ("", str(tmp_path / "prof")):
        result = subprocess.run([str(program), "2"], capture_output=True, text=True, timeout=300, check=False,
                                env={**os.environ, "ASCENDSIM_PROFILE": profile})
        assert result.returncode == 0 and "ThreadSanitizer" not in result.stderr, result.stdout + result.stderr[-6000:]
    assert list((tmp_path / "prof").glob("PROF_*/trace.json"))


def test_exception_info_getters_reject_pointers_not_being_delivered() -> None:
    result = run_python("""
        import threading
        from ascendcl import *
        aclInit(""); aclrtSetDevice(0)
        s, _ = aclrtCreateStream()
        seen = []
        def on_failure(info):
            seen.append((info, aclrtGetErrorCodeFromExceptionInfo(info)))
        assert aclrtSetExceptionInfoCallback(on_failure) == ACL_SUCCESS
        stop = threading.Event()
        t = threading.Thread(target=stop.wait); t.start()
        # A blocking callback nobody processes, cancelled by the unsubscribe: the task fails with 107015.
        assert aclrtSubscribeReport(t.ident, s) == ACL_SUCCESS
        assert aclrtLaunchCallback(lambda d: None, None, ACL_CALLBACK_BLOCK, s) == ACL_SUCCESS
        assert aclrtUnSubscribeReport(t.ident, s) == ACL_SUCCESS
        assert aclrtSynchronizeStream(s) == ACL_ERROR_RT_STREAM_NO_CB_REG
        stop.set(); t.join()
        assert len(seen) == 1 and seen[0][1] == ACL_ERROR_RT_STREAM_NO_CB_REG, seen
        aclGetRecentErrMsg()
        stale = seen[0][0]
        getters = [aclrtGetTaskIdFromExceptionInfo, aclrtGetStreamIdFromExceptionInfo,
                   aclrtGetThreadIdFromExceptionInfo, aclrtGetDeviceIdFromExceptionInfo,
                   aclrtGetErrorCodeFromExceptionInfo]
        for getter in getters:
            for pointer in (stale, 12345, 0, s):  # after the callback, made up, NULL, another kind of handle
                assert getter(pointer) == 0xFFFFFFFF, (getter, pointer)
                message = aclGetRecentErrMsg()
                assert message.startswith("EE100000") and getter.__name__ in message, message
        assert hex(12345) in (aclrtGetTaskIdFromExceptionInfo(12345), aclGetRecentErrMsg())[1]
        print("OK")
    """)
    assert result.returncode == 0 and result.stdout.strip() == "OK", result.stdout + result.stderr


def test_init_finalize_cycles_leak_no_threads_and_invalidate_handles() -> None:
    result = run_python("""
        import os, threading
        from ascendcl import *

        def cycle():
            assert aclInit("") == ACL_SUCCESS
            assert aclrtSetDevice(0) == ACL_SUCCESS
            s, _ = aclrtCreateStream()
            e, _ = aclrtCreateEvent()
            p, _ = aclrtMalloc(1024, ACL_MEM_MALLOC_HUGE_FIRST)
            h, _ = aclrtMallocHost(64)
            assert aclrtMemcpyAsync(p, 64, h, 64, ACL_MEMCPY_HOST_TO_DEVICE, s) == ACL_SUCCESS
            assert aclrtSynchronizeStream(s) == ACL_SUCCESS  # the copy from h has run: h may be freed below
            assert aclrtRecordEvent(e, s) == ACL_SUCCESS and aclrtRecordEvent(e, 0) == ACL_SUCCESS
            ctx, _ = aclrtCreateContext(1)
            s2, _ = aclrtCreateStream()
            aclrtMemsetAsync(p, 1024, 0, 1024, 0)  # device 0 memory from device 1's default stream
            assert aclrtSubscribeReport(threading.get_ident(), s2) == ACL_SUCCESS
            assert aclrtLaunchCallback(print, None, ACL_CALLBACK_BLOCK, s2) == ACL_SUCCESS  # never processed
            assert aclrtFreeHost(h) == ACL_SUCCESS
            assert aclFinalize() == ACL_SUCCESS  # with everything still alive and a callback pending
            return s, e, ctx

        def tasks():
            return len(os.listdir("/proc/self/task"))

        cycle()
        before = tasks()
        for _ in range(50):
            s, e, ctx = cycle()
        after = tasks()
        assert after == before, (before, after)
        assert aclInit("") == ACL_SUCCESS
        # Handles of the finalized runtime are dead, events included (checked before anything new is
        # created: a new object may reuse a freed address).
        assert aclrtQueryEvent(e) == (0, ACL_ERROR_RT_INVALID_HANDLE)
        assert aclrtDestroyEvent(e) == ACL_ERROR_RT_INVALID_HANDLE
        assert aclrtSetCurrentContext(ctx) == ACL_ERROR_RT_PARAM_INVALID
        assert aclrtSynchronizeStream(s) == ACL_ERROR_RT_INVALID_HANDLE
        assert aclFinalize() == ACL_SUCCESS
        print("OK")
    """, timeout=300)
    assert result.returncode == 0 and result.stdout.strip() == "OK", result.stdout + result.stderr
