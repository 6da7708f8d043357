#!/usr/bin/env python3
"""One row written into a KV cache held as a model input, at several cache
sizes: ovir updating it in place against runtimes that copy it.

Run by hand (never in CI), from the repository root:

    cargo build --release -p ovir-cli
    python3 tools/kv_cache_in_place.py [--sizes 16,64,256] [--rounds 3] [--markdown]

For each size (MiB of f32) it writes, with OpenVINO's serializer, a model
of one ScatterUpdate-3 along axis 0: `cache[rows, 1024]` with row
`position` replaced by `update[1, 1024]`, output `updated`. Then, each on
one thread, it times:
  * `ovir bench --feed updated=cache`: each inference's output handed back
    as the next one's cache, so the scatter writes the row in place;
  * `ovir bench` without `--feed`: the benchmark holds the cache, so the
    scatter copies it first, as the other runtimes do;
  * OpenVINO's CPU plugin, the cache set as an input tensor (its in-place
    path is a stateful model with ReadValue and Assign, not this);
  * ONNX Runtime's ScatterND on the same update, when it is installed.
It prints each median over `--rounds` rounds, in milliseconds. The in-place
times should stay flat as the cache grows; the copies grow with it.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import openvino.opset3 as ops3

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OVIR = os.path.join(REPO, "target", "release", "ovir")
WIDTH = 1024


def kv_model(rows):
    cache = ops1.parameter([rows, WIDTH], np.float32, name="cache")
    cache.output(0).set_names({"cache"})
    position = ops1.parameter([1], np.int64, name="position")
    position.output(0).set_names({"position"})
    update = ops1.parameter([1, WIDTH], np.float32, name="update")
    update.output(0).set_names({"update"})
    axis = ops1.constant(np.array(0, dtype=np.int64))
    node = ops3.scatter_update(cache, position, update, axis)
    node.output(0).set_names({"updated"})
    return ov.Model([ops1.result(node)], [cache, position, update], "kv_cache")


def median_ms(fn, iterations, warmup=3):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(iterations):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return float(np.median(times))


def time_ovir(xml, inputs_npz, iterations, feed):
    args = [OVIR, "bench", xml, "-i", inputs_npz, "--threads", "1", "--iterations", str(iterations),
            "--warmup", "3", "--json"]
    if feed:
        args += ["--feed", "updated=cache"]
    out = subprocess.run(args, check=True, capture_output=True, text=True)
    return json.loads(out.stdout)["median_ms"]


def time_openvino(core, model, feeds, iterations):
    compiled = core.compile_model(model, "CPU", {"INFERENCE_NUM_THREADS": 1})
    request = compiled.create_infer_request()
    for name, value in feeds.items():
        request.set_tensor(name, ov.Tensor(value))
    return median_ms(request.infer, iterations)


def time_onnxruntime(rows, feeds, iterations):
    try:
        import onnx
        import onnxruntime as ort
        from onnx import TensorProto, helper
    except ImportError:
        return None
    node = helper.make_node("ScatterND", ["cache", "indices", "update"], ["updated"])
    graph = helper.make_graph(
        [node],
        "kv_cache",
        [
            helper.make_tensor_value_info("cache", TensorProto.FLOAT, [rows, WIDTH]),
            helper.make_tensor_value_info("indices", TensorProto.INT64, [1, 1]),
            helper.make_tensor_value_info("update", TensorProto.FLOAT, [1, WIDTH]),
        ],
        [helper.make_tensor_value_info("updated", TensorProto.FLOAT, [rows, WIDTH])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)])
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    inputs = {"cache": feeds["cache"], "indices": feeds["position"].reshape(1, 1), "update": feeds["update"]}
    return median_ms(lambda: session.run(None, inputs), iterations)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="16,64,256", help="cache sizes in MiB")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=20, help="per round, for the runtimes that copy")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    if not os.path.exists(OVIR):
        sys.exit(f"{OVIR} is missing: run `cargo build --release -p ovir-cli` first")
    core = ov.Core()
    rows_per_mib = (1 << 20) // (WIDTH * 4)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for mib in [int(s) for s in args.sizes.split(",")]:
            rows = mib * rows_per_mib
            model = kv_model(rows)
            xml = os.path.join(tmp, f"kv_{mib}.xml")
            ov.save_model(model, xml, compress_to_fp16=False)
            rng = np.random.default_rng(mib)
            feeds = {
                "cache": rng.standard_normal((rows, WIDTH), dtype=np.float32),
                "position": np.array([rows // 2], dtype=np.int64),
                "update": rng.standard_normal((1, WIDTH), dtype=np.float32),
            }
            npz = os.path.join(tmp, f"kv_{mib}.npz")
            np.savez(npz, **feeds)
            rounds = {"in_place": [], "held": [], "openvino": [], "onnxruntime": []}
            for _ in range(args.rounds):
                rounds["in_place"].append(time_ovir(xml, npz, 1000, True))
                rounds["held"].append(time_ovir(xml, npz, args.iterations, False))
                rounds["openvino"].append(time_openvino(core, model, feeds, args.iterations))
                ort_ms = time_onnxruntime(rows, feeds, args.iterations)
                if ort_ms is not None:
                    rounds["onnxruntime"].append(ort_ms)
            row = {k: (float(np.median(v)) if v else None) for k, v in rounds.items()}
            row["mib"] = mib
            results.append(row)
            print(f"{mib} MiB: {row}", file=sys.stderr)
    fmt = lambda v: "—" if v is None else (f"{v * 1e3:.1f} µs" if v < 0.1 else f"{v:.2f} ms")
    if args.markdown:
        print("| cache | ovir, handed over (in place) | ovir, held (copies) | OpenVINO CPU | ONNX Runtime ScatterND |")
        print("|---|---|---|---|---|")
        for r in results:
            print(f"| {r['mib']} MiB | {fmt(r['in_place'])} | {fmt(r['held'])} | {fmt(r['openvino'])} "
                  f"| {fmt(r['onnxruntime'])} |")
    else:
        for r in results:
            print(f"{r['mib']:>5} MiB  in place {fmt(r['in_place']):>10}  held {fmt(r['held']):>10}  "
                  f"OpenVINO {fmt(r['openvino']):>10}  ONNX Runtime {fmt(r['onnxruntime']):>10}")


if __name__ == "__main__":
    main()
