"""The kernel variants through the installed library (docs/kernels.md): every variant this CPU runs is chosen
when ASCENDSIM_ISA names it, reported by ascendsim.kernel_variant(), and runs whole models (small ResNet-50,
MobileNetV2, BERT and ViT, force_fp32) to onnxruntime's numbers (the tolerances of test_whole_models.py), with
every ASCENDSIM_PRODUCTS mode; a bad ASCENDSIM_ISA or ASCENDSIM_PRODUCTS is reported and the default runs; the
load log and ascendsimGetModelKernels name each node's path."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from exec_helpers import compile_model, reference
from test_whole_models import FP32_ATOL, FP32_RTOL, MODELS

import ascendsim
from acl_helpers import run_python
from ascendcl import ACL_ERROR_GE_EXEC_MODEL_ID_INVALID, aclGetRecentErrMsg
from ascendsim import _core

VARIANTS = ascendsim.kernel_variants()
CHECKED = ("resnet50", "mobilenet_v2", "bert_base_encoder", "vit_b16")

# Runs every .om of a directory on the feeds beside it and saves the outputs; prints the variant and the paths.
RUN_MODELS = """
    import json, sys
    from pathlib import Path
    import numpy as np
    import acl, ascendsim
    from exec_helpers import DeviceBuffers
    from ascendcl import aclmdlExecute, aclmdlLoadFromFile, aclmdlUnload
    directory = Path(sys.argv[1])
    acl.init(); acl.rt.set_device(0)
    paths = {}
    for om in sorted(directory.glob("*.om")):
        feeds = np.load(om.with_suffix(".feeds.npz"))
        want = np.load(om.with_suffix(".want.npz"))
        model_id, ret = aclmdlLoadFromFile(str(om))
        assert ret == 0, acl.get_recent_err_msg()
        inputs, outputs = DeviceBuffers(list(feeds.values())), DeviceBuffers(list(want.values()))
        assert aclmdlExecute(model_id, inputs.dataset, outputs.dataset) == 0, acl.get_recent_err_msg()
        np.savez(om.with_suffix(".got.npz"), *outputs.read())
        paths[om.stem] = [n["path"] for n in ascendsim.model_kernels(model_id)["plans"][0]["nodes"]]
        inputs.close(); outputs.close(); aclmdlUnload(model_id)
    print(json.dumps({"variant": ascendsim.kernel_variant(), "paths": paths}))
"""


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The checked models compiled, with their feeds and onnxruntime's outputs."""
    directory = tmp_path_factory.mktemp("variants")
    rng = np.random.default_rng(7)
    for name in CHECKED:
        model = MODELS[name]()
        feeds = {}
        for value in model.graph.input:
            shape = [d.dim_value for d in value.type.tensor_type.shape.dim]
            integer = value.type.tensor_type.elem_type == 7  # int64 ids, masks and token types
            feeds[value.name] = rng.integers(0, 2, shape).astype(np.int64) if integer else \
                rng.standard_normal(shape).astype(np.float32)
        compile_model(model, directory, name)
        np.savez(directory / f"{name}.feeds.npz", **feeds)
        np.savez(directory / f"{name}.want.npz", *reference(model, feeds))
    return directory


def run_models(directory: Path, env: dict[str, str]) -> dict:
    done = run_python(RUN_MODELS.replace("sys.argv[1]", repr(str(directory))),
                      env={**env, "PYTHONPATH": str(Path(__file__).parent)}, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize("products", ["auto", "packed", "openblas"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_models_match_onnxruntime_on_every_variant(compiled: Path, variant: str, products: str) -> None:
    env = {"ASCENDSIM_ISA": variant, "ASCENDSIM_PRODUCTS": products}
    report = run_models(compiled, env)
    assert report["variant"] == variant
    for name in CHECKED:
        got, want = np.load(compiled / f"{name}.got.npz"), np.load(compiled / f"{name}.want.npz")
        for key in want:
            scale = max(1.0, float(np.abs(want[key]).max()))
            np.testing.assert_allclose(got[key].reshape(want[key].shape), want[key], rtol=FP32_RTOL,
                                       atol=FP32_ATOL * scale, err_msg=f"{name} on {variant} ({products})")
    # (with AVX-512 ResNet-50's convs outside Winograd run blocked; ViT's patch conv stays NCHW everywhere)
    conv_paths = [path for name in CHECKED for path in report["paths"][name]
                  if path.startswith(("im2col", "pointwise", "Winograd"))]
    assert conv_paths, report["paths"]
    for path in conv_paths:
        if products != "auto":
            assert ("OpenBLAS sgemm" in path) == (products == "openblas"), path


def test_the_variant_is_the_best_by_default_and_listed_lowest_first() -> None:
    done = run_python("import ascendsim; print(ascendsim.kernel_variant(), *ascendsim.kernel_variants())",
                      env={"ASCENDSIM_ISA": ""})
    assert done.returncode == 0, done.stderr
    chosen, *listed = done.stdout.split()
    assert listed == VARIANTS and chosen == VARIANTS[-1]
    assert VARIANTS[0] in ("baseline", "neon", "generic")


@pytest.mark.parametrize("wanted", ["sse9", "AVX2", "avx512"])
def test_a_variant_that_cannot_run_is_reported_and_the_best_runs(wanted: str) -> None:
    if wanted in VARIANTS:
        pytest.skip(f"this CPU runs {wanted}")
    done = run_python("import ascendsim; print(ascendsim.kernel_variant())", env={"ASCENDSIM_ISA": wanted})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == VARIANTS[-1]
    assert f"ASCENDSIM_ISA={wanted}" in done.stderr and VARIANTS[-1] in done.stderr, done.stderr


def test_an_unknown_products_mode_is_reported_and_auto_runs(compiled: Path) -> None:
    done = run_python(f"""
        import acl
        acl.init(); acl.rt.set_device(0)
        model_id, ret = acl.mdl.load_from_file({str(compiled / "vit_b16.om")!r})
        assert ret == 0
        """, env={"ASCENDSIM_PRODUCTS": "fastest"})
    assert done.returncode == 0, done.stderr
    assert "ASCENDSIM_PRODUCTS=fastest is not auto, packed or openblas; using auto" in done.stderr


def test_auto_times_a_large_product_once_and_keeps_the_faster_path(tmp_path: Path) -> None:
    from ascendsim.bench.kernels import conv_case

    model = conv_case("c", "", c=256, m=256, hw=14, k=1).build()  # 12.8 M multiply-adds: timed
    compile_model(model, tmp_path, "conv")
    done = run_python(f"""
        import acl, ascendsim
        acl.init(); acl.rt.set_device(0)
        for _ in range(2):  # the second load finds the choice made
            model_id, ret = acl.mdl.load_from_file({str(tmp_path / "conv.om")!r})
            assert ret == 0
            print("PATH", ascendsim.model_kernels(model_id)["plans"][0]["nodes"][0]["path"])
        """, env={"ASCEND_SLOG_PRINT_TO_STDOUT": "1", "ASCEND_GLOBAL_LOG_LEVEL": "1", "ASCENDSIM_PRODUCTS": "auto"})
    assert done.returncode == 0, done.stderr
    timed = [line for line in done.stdout.splitlines() if "product A*B 256 x 256 x 196: packed" in line]
    assert len(timed) == 1, done.stdout
    chosen = timed[0].rsplit(": ", 1)[1]
    paths = [line.split(" ", 1)[1] for line in done.stdout.splitlines() if line.startswith("PATH ")]
    assert len(paths) == 2 and all(("OpenBLAS" in path) == (chosen == "OpenBLAS") for path in paths), (chosen, paths)


@pytest.mark.parametrize("products", ["auto", "packed", "openblas"])
def test_a_linear_layer_at_batch_1_streams_its_weights_unless_openblas_is_forced(tmp_path: Path, products: str) -> None:
    """A Gemm of one row by 1280 x 1280 weights stored transposed (torch's Linear: 1.6 M floats) runs on sgemm's
    streamed rows, named so, except under ASCENDSIM_PRODUCTS=openblas (sgemv); both to onnxruntime's numbers."""
    from ascendsim.bench.kernels import linear_chain_case

    model = linear_chain_case("linear", "", width=1280, layers=2).build()
    compile_model(model, tmp_path, "linear")
    x = np.random.default_rng(5).standard_normal((1, 1280)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    done = run_python(f"""
        import numpy as np, acl, ascendsim
        from exec_helpers import execute_once
        acl.init(); acl.rt.set_device(0)
        model_id, ret = acl.mdl.load_from_file({str(tmp_path / "linear.om")!r})
        assert ret == 0
        for node in ascendsim.model_kernels(model_id)["plans"][0]["nodes"]:
            print("PATH", node["path"])
        x = np.load({str(tmp_path / "x.npy")!r})
        np.save({str(tmp_path / "got.npy")!r}, execute_once(model_id, [x], [np.empty((1, 1280), np.float32)])[0])
        """, env={"ASCENDSIM_PRODUCTS": products, "PYTHONPATH": str(Path(__file__).parent)})
    assert done.returncode == 0, done.stdout + done.stderr
    paths = [line.split(" ", 1)[1] for line in done.stdout.splitlines() if line.startswith("PATH ")]
    want_path = "OpenBLAS sgemm (" if products == "openblas" else f"streamed matrix-vector rows ({VARIANTS[-1]})"
    assert len(paths) == 2 and all(path.startswith(want_path) for path in paths), paths
    np.testing.assert_allclose(np.load(tmp_path / "got.npy"), reference(model, {"a": x})[0], rtol=FP32_RTOL,
                               atol=FP32_ATOL)


def test_the_load_log_names_each_nodes_variant_and_path(compiled: Path) -> None:
    done = run_python(f"""
        import acl
        acl.init(); acl.rt.set_device(0)
        model_id, ret = acl.mdl.load_from_file({str(compiled / "vit_b16.om")!r})
        assert ret == 0
        """, env={"ASCEND_SLOG_PRINT_TO_STDOUT": "1", "ASCEND_GLOBAL_LOG_LEVEL": "0"})
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if "kernel variant" in line and "node '" in line]
    variant = VARIANTS[-1]
    assert lines and all(f"kernel variant {variant}" in line for line in lines), done.stdout[-2000:]
    assert any("(Conv): kernel variant" in line and ("packed tiles" in line or "OpenBLAS" in line) for line in lines)


def test_model_kernels_refuses_an_unknown_model() -> None:
    text, ret = _core.ascendsimGetModelKernels(987654)
    assert (text, ret) == ("", ACL_ERROR_GE_EXEC_MODEL_ID_INVALID)
    assert "ascendsimGetModelKernels: model id 987654 is not loaded" in aclGetRecentErrMsg()


class TimedConv:
    """One conv of the kernels group (bench/kernels.py's conv_case), compiled, with onnxruntime's output for a
    random input; run(products, threads) executes it once in a fresh process (the timing's choices are made once
    per process) with the product log on and returns the log's lines that contain `timed_line` and the node's
    kernel path; got() is that run's output."""

    def __init__(self, tmp_path: Path, shape: dict[str, int], seed: int) -> None:
        from ascendsim.bench.kernels import conv_case

        model = conv_case("c", "", **shape).build()
        compile_model(model, tmp_path, "conv")
        x = np.random.default_rng(seed).standard_normal((1, shape["c"], shape["hw"], shape["hw"])).astype(np.float32)
        np.save(tmp_path / "x.npy", x)
        self.want = reference(model, {"x": x})[0]
        self.out = tmp_path / "got.npy"
        self.script = f"""
            import numpy as np, acl, ascendsim
            from exec_helpers import execute_once
            acl.init(); acl.rt.set_device(0)
            model_id, ret = acl.mdl.load_from_file({str(tmp_path / "conv.om")!r})
            assert ret == 0
            print("PATH", ascendsim.model_kernels(model_id)["plans"][0]["nodes"][0]["path"])
            x = np.load({str(tmp_path / "x.npy")!r})
            np.save({str(self.out)!r}, execute_once(model_id, [x], [np.empty({self.want.shape!r}, np.float32)])[0])
            """

    def run(self, products: str, timed_line: str, threads: str | None = None) -> tuple[list[str], str, str]:
        env = {"ASCEND_SLOG_PRINT_TO_STDOUT": "1", "ASCEND_GLOBAL_LOG_LEVEL": "1", "ASCENDSIM_PRODUCTS": products,
               "PYTHONPATH": str(Path(__file__).parent)}
        if threads is not None:
            env["ASCENDSIM_NUM_THREADS"] = threads
        done = run_python(self.script, env=env)
        assert done.returncode == 0, done.stdout + done.stderr
        timed = [line for line in done.stdout.splitlines() if timed_line in line]
        path = next(line for line in done.stdout.splitlines() if line.startswith("PATH ")).split(" ", 1)[1]
        return timed, path, done.stdout

    def check_output(self, products: str) -> None:
        np.testing.assert_allclose(np.load(self.out), self.want, rtol=FP32_RTOL, atol=FP32_ATOL, err_msg=products)


# (conv_case arguments, the timed line's start, the direct path's name): a 3x3 stride-1 conv's Winograd and a
# 3-channel stem's direct loop, each against im2col.
DIRECT_PATHS = [
    ({"c": 96, "m": 96, "hw": 7, "k": 3}, "conv 96 -> 96 3x3 stride 1x1 on 1x7x7: Winograd ", "Winograd"),  # 4.1 M
    ({"c": 3, "m": 32, "hw": 112, "k": 3, "stride": 2}, "conv 3 -> 32 3x3 stride 2x2 on 1x112x112: direct ",
     "direct"),  # 2.7 M multiply-adds
]


@pytest.mark.parametrize(("shape", "timed_line", "direct"), DIRECT_PATHS)
def test_auto_times_the_direct_conv_against_im2col_and_both_match(tmp_path: Path, shape: dict[str, int],
                                                                  timed_line: str, direct: str) -> None:
    """A conv with a direct path (Winograd for 3x3 stride 1, the stem loop for at most 4 input channels) of at
    least 2M multiply-adds is built both ways and timed once (docs/kernels.md): the log names both times and the
    choice, the node's path is the chosen one, and the output matches onnxruntime whichever won; under packed the
    direct path runs untimed, under openblas a stem runs im2col on OpenBLAS."""
    conv = TimedConv(tmp_path, shape, seed=5)
    for products in ("auto", "packed") + (("openblas",) if direct == "direct" else ()):
        timed, path, log = conv.run(products, timed_line)
        if products == "auto":
            assert len(timed) == 1 and ", im2col " in timed[0], log
            chosen = timed[0].rsplit(": ", 1)[1]
            assert path.startswith(direct if chosen == direct else "im2col"), (chosen, path)
        elif products == "packed":
            assert not timed and path.startswith(direct), (timed, path)
        else:
            assert not timed and path.startswith("im2col, OpenBLAS sgemm"), (timed, path)
        conv.check_output(products)


# (conv_case arguments, the timed line's start): products below the timing's floor, timed by all that one execution
# runs of them: a Winograd conv's 16 x 4 products of 64 x 64 x 196 (0.8 M each), timed as a block's 16, each with
# its own U_t, and a grouped conv's 32 products of 4 x 36 x 784, timed as the whole conv on each path, through the
# pool.
PRODUCTS_BY_THE_CALL = [
    ({"c": 64, "m": 64, "hw": 56, "k": 3}, "Winograd products, 16 of A*B 64 x 64 x 196: packed "),
    ({"c": 128, "m": 128, "hw": 28, "k": 3, "group": 32}, "conv 128 -> 128 3x3 stride 1x1 on 1x28x28, 32 groups: packed "),
]


@pytest.mark.parametrize(("shape", "timed_line"), PRODUCTS_BY_THE_CALL)
@pytest.mark.parametrize("threads", ["1", "2"])
def test_auto_times_small_products_by_what_one_execution_runs_and_both_paths_match(
        tmp_path: Path, shape: dict[str, int], timed_line: str, threads: str) -> None:
    """Each product is below the 2M multiply-adds that a product alone needs to be timed, but one execution runs
    enough of them: under auto the log names both times and the choice, the node runs the chosen path, and the
    output matches onnxruntime; under packed nothing is timed."""
    conv = TimedConv(tmp_path, shape, seed=7)
    for products in ("auto", "packed"):
        timed, path, log = conv.run(products, timed_line, threads)
        if products == "auto":
            assert len(timed) == 1 and ", OpenBLAS " in timed[0], log
            chosen = "OpenBLAS sgemm" if timed[0].rsplit(": ", 1)[1] == "OpenBLAS" else "packed tiles"
            assert chosen in path, (timed[0], path)
        else:
            assert not timed and "packed tiles" in path, (timed, path)
        conv.check_output(products)
