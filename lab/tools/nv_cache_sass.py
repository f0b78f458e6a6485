#!/usr/bin/env python3
"""The machine code NVIDIA's Vulkan driver made of our shaders, from its shader disk cache.

The driver shows no SASS through Vulkan (VK_KHR_pipeline_executable_properties gives statistics
and no internal representation), but it keeps every compiled pipeline in its disk cache, and
`__GL_SHADER_DISK_CACHE_PATH=DIR` (with `__GL_SHADER_DISK_CACHE_SKIP_CLEANUP=1`) puts that cache
where a GPU run can bring it back. Its .bin files hold zstd frames; a frame that decompresses to an
"NVDANVVMNVuc" container holds one pipeline's code: a raw instruction stream whose length is the
container's 32-bit word at byte 76 and whose start is the word at byte 80 plus 8 (read from the
driver 580.159 on an H200, and checked by disassembling: a wrong offset gives illegal
instructions). nvdisasm -b SM90 turns it into SASS. Run it here, where `zstd` is installed
(lab/25-vulkan-k13-driver/gpu_vulkan_probe.sh brings the cache back).

  lab/tools/nv_cache_sass.py CACHE_DIR OUT_DIR [--arch SM90]

Writes OUT_DIR/<bin file>-<n>.sass per pipeline (headed "Function : <bin file>-<n>", as cuobjdump
heads a function, so that lab/tools/sass_load_distance.py OUT_DIR/X.sass <bin file> finds its loops)
and prints each one's size and the counts of the instructions that matter to a GEMM's main loop.
NVDISASM names nvdisasm where it is not on PATH (PyPI's nvidia-cuda-nvdisasm has one).
"""
import argparse
import collections
import os
import re
import shutil
import struct
import subprocess
import sys

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
CONTAINER = b"NVDANVVMNVuc"
COUNTED = ["HMMA", "LDSM", "MOVM", "LDS", "STS", "LDG", "LDGSTS", "BAR", "BRA", "SHFL"]


def frames(data):
    """Every zstd frame of a cache file, decompressed (the first frame may not be zstd's)."""
    start = data.find(ZSTD_MAGIC)
    while start >= 0:
        out = subprocess.run(["zstd", "-d", "-c", "-q"], input=data[start:], capture_output=True).stdout
        if out:
            yield out
        start = data.find(ZSTD_MAGIC, start + 1)


def code_of(container):
    """The raw instruction stream of a pipeline container."""
    size, offset = struct.unpack_from("<II", container, 76)
    start = offset + 8
    if size == 0 or size % 16 or start + size > len(container):
        raise ValueError(f"container of {len(container)} bytes: code size {size} at {start} does not fit")
    return container[start:start + size]


def opcode_counts(sass):
    counts = collections.Counter()
    for line in sass.splitlines():
        m = re.match(r"\s*/\*[0-9a-f]+\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9]*)", line)
        if m:
            counts[m.group(1)] += 1
    return counts


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cache")
    parser.add_argument("out")
    parser.add_argument("--arch", default="SM90")
    args = parser.parse_args()
    nvdisasm = os.environ.get("NVDISASM") or shutil.which("nvdisasm")
    if not nvdisasm:
        sys.exit("no nvdisasm: set NVDISASM (e.g. from PyPI's nvidia-cuda-nvdisasm) or put it on PATH")
    if not shutil.which("zstd"):
        sys.exit("no zstd on PATH (Debian: zstd)")
    os.makedirs(args.out, exist_ok=True)
    found = 0
    for root, _, files in sorted(os.walk(args.cache)):
        for name in sorted(f for f in files if f.endswith(".bin")):
            data = open(os.path.join(root, name), "rb").read()
            for n, frame in enumerate(f for f in frames(data) if f.startswith(CONTAINER)):
                raw = os.path.join(args.out, f"{name[:-4]}-{n}.code")
                open(raw, "wb").write(code_of(frame))
                result = subprocess.run([nvdisasm, "-b", args.arch, raw], capture_output=True, text=True)
                if result.returncode != 0:
                    sys.exit(f"{raw}: nvdisasm failed: {result.stderr.strip()}")
                sass = os.path.join(args.out, f"{name[:-4]}-{n}.sass")
                # cuobjdump's function header, so that lab/tools/sass_load_distance.py reads it as it is
                open(sass, "w").write(f"Function : {name[:-4]}-{n}\n" + result.stdout)
                os.remove(raw)
                counts = opcode_counts(result.stdout)
                total = sum(counts.values())
                print(f"{os.path.basename(sass)}: {total} instructions; " +
                      ", ".join(f"{op} {counts[op]}" for op in COUNTED if counts[op]))
                found += 1
    if found == 0:
        sys.exit(f"no pipeline containers under {args.cache}")


if __name__ == "__main__":
    main()
