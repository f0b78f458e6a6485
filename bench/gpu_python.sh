#!/usr/bin/env bash
# Runs on the lent GPU machine: tileskip from Python with PyTorch CUDA tensors in and out,
# zero-copy checked, then the PyTorch operator's and layer's tests (tests/python/test_torch_op.py), logged to
# $OUT/python-gpu.log (and $OUT/python-gpu.json). Carry first, on
# the build machine: scripts/gpu/prepare_carry.sh (it puts the package in .carry/python/tileskip and,
# for a Python other than the build's, the static libraries to link the extension there).
#
# The extension is the carried one when its Python version matches this machine's python3;
# otherwise it is compiled here from python/tileskip_module.cpp against the carried libraries,
# with pybind11's headers from PyTorch's own include folder. Set PYTHON to pick an interpreter.
set -u
source "$(dirname "$0")/../scripts/gpu/gpu_setup.sh"
PY=${PYTHON:-python3}
log=$OUT/python-gpu.log
pkg=/tmp/tileskip-python/tileskip
mkdir -p "$pkg" && cp -r .carry/python/tileskip/. "$pkg/"
{
  echo "== $(date -u +%FT%TZ) $(hostname)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  "$PY" -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.is_available())'
} >"$log" 2>&1

suffix=$("$PY" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
if [ ! -f "$pkg/_tileskip$suffix" ]; then
  echo "== building _tileskip$suffix here (the carried extension is for another Python)" >>"$log"
  rm -f "$pkg"/_tileskip.*.so
  includes=$("$PY" -c 'import sysconfig, torch.utils.cpp_extension as c; print(" ".join("-I" + p for p in [sysconfig.get_paths()["include"]] + c.include_paths()))')
  libs=.carry/pylibs
  # shellcheck disable=SC2086
  g++ -O2 -std=c++20 -shared -fPIC -fvisibility=hidden -DTILESKIP_VERSION="\"$(cat $libs/version)\"" \
      -I. -I$libs/include $includes python/tileskip_module.cpp -o "$pkg/_tileskip$suffix" \
      -Wl,--start-group $libs/*.a -Wl,--end-group /tmp/hostlibs/libopenblas.so.0 /tmp/hostlibs/libcrypto.so.3 /tmp/hostlibs/libzip.so.4 -lz -ldl -pthread \
      -Wl,--exclude-libs,ALL >>"$log" 2>&1 || { echo "[python-gpu] build failed: $log"; tail -n 30 "$log"; exit 1; }
fi

PYTHONPATH=/tmp/tileskip-python "$PY" - "$OUT/python-gpu.json" >>"$log" 2>&1 <<'PYEOF'
import json, sys, time
import torch
from torch.profiler import ProfilerActivity, profile
import tileskip

out = {"tileskip": tileskip.__version__, "torch": torch.__version__, "backends": tileskip.backends(), "runs": []}
print("backends:", [(b["name"], b["available"], b.get("device") or b["reason"]) for b in out["backends"]])
dev = torch.device("cuda", 0)
failures = []

def check(name, ok, detail=""):
    print(("PASS " if ok else "FAIL ") + name + (": " + detail if detail else ""))
    if not ok:
        failures.append(name)

size = 4096
a = torch.from_numpy(tileskip.generate("blocks", size, size, density=0.25, operand="A", block=64)).to(dev)
b = torch.from_numpy(tileskip.generate("blocks", size, size, density=0.25, operand="B", block=64)).to(dev)
reference = a.double() @ b.double()
torch.cuda.synchronize()
for kernel in ("pipelined", "warp-joint-64x64", "joint-8x32", "cublas"):
    pa, pb = a.data_ptr(), b.data_ptr()
    tileskip.matmul(a, b, kernel=kernel, backend="cuda")  # warm-up: module load, patterns, cuBLAS init
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        c = tileskip.matmul(a, b, kernel=kernel, backend="cuda")
        torch.cuda.synchronize()
    copies = [e.name for e in prof.events() if "memcpy" in e.name.lower() and ("HtoD" in e.name or "DtoH" in e.name)]
    start = time.perf_counter()
    for _ in range(10):
        c = tileskip.matmul(a, b, kernel=kernel, backend="cuda")
    torch.cuda.synchronize()
    ms = (time.perf_counter() - start) * 100.0
    error = ((c.double() - reference).abs().max() / reference.abs().max()).item()
    run = {"kernel": kernel, "c_is_cuda": c.is_cuda, "c_device": str(c.device), "c_dtype": str(c.dtype),
           "inputs_unmoved": a.data_ptr() == pa and b.data_ptr() == pb, "host_copies": copies,
           "wall_ms_per_call": ms, "max_rel_error": error}
    out["runs"].append(run)
    print(json.dumps(run))
    check(f"{kernel}: C is a CUDA float32 tensor on {dev}", c.is_cuda and c.device == a.device and c.dtype == torch.float32)
    check(f"{kernel}: A and B read in place", run["inputs_unmoved"])
    check(f"{kernel}: no host<->device copy during the call", not copies, ", ".join(copies))
    check(f"{kernel}: C equals the float64 product", error < 1e-4, f"max relative error {error:.2e}")

# C is storage torch allocated: the pointer the kernel wrote is the tensor's own.
c = torch.empty((size, size), device=dev)
to_dlpack = torch.utils.dlpack.to_dlpack
result = tileskip._tileskip.matmul_device(to_dlpack(a), to_dlpack(b), to_dlpack(c), "pipelined",
                                          torch.cuda.current_stream().cuda_stream, -1)
check("the kernel wrote C in the tensor torch allocated", result["c_pointer"] == c.data_ptr())
check("verify=True on CUDA tensors", tileskip.matmul(a[:257, :300], b[:300, :129], kernel="joint-8x32", verify=True).is_cuda)
# On a side stream: ordered after the caller's work, and the caller's after C.
side = torch.cuda.Stream()
with torch.cuda.stream(side):
    x = a * 1.0
    c2 = tileskip.matmul(x, b, kernel="pipelined")
    d = c2 + 0
torch.cuda.synchronize()
check("ordered on a side stream", torch.allclose(d.double(), reference, rtol=1e-4, atol=1e-3))
auto = tileskip.matmul(a, b)  # kernel="auto": auto's choice, as for host arrays (A and B copied to the host once)
check("auto on CUDA tensors", torch.allclose(auto.double(), reference, rtol=1e-4, atol=1e-3))
torch.cuda.synchronize()
t0 = time.perf_counter()
for _ in range(10):
    torch.mm(a, b)
torch.cuda.synchronize()
out["torch_mm_ms_per_call"] = (time.perf_counter() - t0) * 100.0
out["failures"] = failures
json.dump(out, open(sys.argv[1], "w"), indent=2)
print("torch.mm ms per call:", out["torch_mm_ms_per_call"])
print("FAILURES:", failures if failures else "none")
sys.exit(1 if failures else 0)
PYEOF
rc=$?
# The PyTorch operator's tests (CI's machine has no PyTorch and skips them).
echo "== pytest tests/python/test_torch_op.py" >>"$log"
PYTHONPATH=/tmp/tileskip-python PYTHONDONTWRITEBYTECODE=1 "$PY" -m pytest -q -p no:cacheprovider -rs \
  tests/python/test_torch_op.py >>"$log" 2>&1 || rc=1
echo "[python-gpu] rc=$rc log $log"
tail -n 30 "$log"
exit $rc
