#!/usr/bin/env python3
"""What torch.ops.tileskip.matmul costs over its kernel, on a CUDA GPU (bench/gpu_python.sh runs it).

Usage: torch_op_overhead.py OUT.json [SIZE ...]

For each kernel, at each SIZE³ (default 4096 and 512) on block-sparse fp32 operands (128-blocks, density 0.25
each): the device time of the CUDA kernels one call launches (the PyTorch profiler's CUDA events)
and the wall time of one call, each a mean over 20 calls after 3 warm-up calls; the difference is
what the operator adds on the device's time line (Python, the dispatcher, the DLPack hand-over,
tileskip's own work on the host, where it makes the GPU wait), and the host's time to queue one
call (the calls return before their kernels finish). torch.mm on the same tensors is measured the
same way. kernel "auto" is not among them: it copies A and B to the host to inspect them, on every
call.
"""
import json
import sys
import time

import torch
from torch.profiler import ProfilerActivity, profile

import tileskip
import tileskip.ops  # noqa: F401  registers torch.ops.tileskip.matmul

CALLS, WARMUP = 20, 3


def measure(call):
    for _ in range(WARMUP):
        call()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(CALLS):
            call()
        torch.cuda.synchronize()
    device_us = sum(e.self_device_time_total for e in prof.key_averages() if e.device_type == torch.autograd.DeviceType.CUDA)
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(CALLS):
        call()
    queued = time.perf_counter()
    torch.cuda.synchronize()
    wall_us = (time.perf_counter() - start) * 1e6 / CALLS
    return {"device_us_per_call": device_us / CALLS, "wall_us_per_call": wall_us,
            "overhead_us_per_call": wall_us - device_us / CALLS, "host_us_per_call": (queued - start) * 1e6 / CALLS}


def main(argv):
    out = argv[1]
    sizes = [int(s) for s in argv[2:]] or [4096, 512]
    dev = torch.device("cuda", 0)
    rows, measures = [], []
    for size in sizes:
        a = torch.from_numpy(tileskip.generate("blocks", size, size, density=0.25, operand="A", block=128)).to(dev)
        b = torch.from_numpy(tileskip.generate("blocks", size, size, density=0.25, operand="B", block=128)).to(dev)
        calls = {kernel: (lambda k=kernel: torch.ops.tileskip.matmul(a, b, k)) for kernel in ("pipelined", "warp-joint-64x64", "cublas")}
        calls["torch.mm"] = lambda: torch.mm(a, b)
        for kernel, call in calls.items():
            row = {"size": size, "kernel": kernel, **measure(call)}
            rows.append(row)
            print(json.dumps(row), flush=True)
            for key, what in (("overhead_us_per_call", "time line over its kernels (us)"), ("host_us_per_call", "host time to queue a call (us)")):
                measures.append({"measure": f"{size}^3 {kernel}: {what}", "value": round(row[key], 2)})
    # Shaped as a suite's result, so scripts/record-result.py records it.
    record = {"suite": "torch-op", "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "size": sizes[0],
              "devices": [f"cuda: {torch.cuda.get_device_name(dev)}, torch {torch.__version__}"],
              "tool": {"version": tileskip.__version__}, "dtype": "fp32",
              "operands": "blocks 128, density 0.25 / 0.25", "calls": CALLS, "rows": rows, "measures": measures}
    with open(out, "w") as f:
        json.dump(record, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
