#!/usr/bin/env python3
"""Where a BlockSparseLinear forward pass spends its device time (PyTorch profiler, CUDA kernels).

Usage: torch_layer_profile.py [KERNEL [DTYPE]]: KERNEL the layer's ("torch", the default, or a tileskip
kernel id), DTYPE bf16 (the default) or fp32; one 4096-wide layer, 128-blocks at 0.25, batch 4096,
10 forward passes after 3 warm-up; prints the CUDA kernels by total time, and nn.Linear's for scale.
"""
import sys

import torch
from torch.profiler import ProfilerActivity, profile

import tileskip.nn


def main(argv):
    dtype = {"fp32": torch.float32, "bf16": torch.bfloat16}[argv[2] if len(argv) > 2 else "bf16"]
    kernel = argv[1] if len(argv) > 1 else "torch"
    dev = torch.device("cuda", 0)
    layer = tileskip.nn.BlockSparseLinear(4096, 4096, block=128, density=0.25, kernel=kernel).to(dev, dtype)
    dense = torch.nn.Linear(4096, 4096).to(dev, dtype)
    x = torch.randn(4096, 4096, device=dev, dtype=dtype)
    for name, model in (("BlockSparseLinear " + kernel, layer), ("nn.Linear", dense)):
        with torch.no_grad():
            for _ in range(3):
                model(x)
            torch.cuda.synchronize()
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                for _ in range(10):
                    model(x)
                torch.cuda.synchronize()
        print(f"== {name} ({dtype}), per forward pass:")
        events = [e for e in prof.key_averages() if e.device_type == torch.autograd.DeviceType.CUDA]
        for e in sorted(events, key=lambda e: -e.self_device_time_total)[:10]:
            print(f"  {e.self_device_time_total / 10:9.1f} us  x{e.count // 10}  {e.key[:110]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
