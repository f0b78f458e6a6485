"""torch.ops.tileskip.matmul: the operator, its fake implementation, autograd and torch.compile.

Needs PyTorch, which CI's machine does not install (docs/testing.md): there every test here is
skipped, and bench/gpu_python.sh runs them on the GPU machine, on the CPU and on CUDA tensors.
"""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import tileskip  # noqa: E402
import tileskip.ops  # noqa: E402,F401  registers torch.ops.tileskip.matmul


def _devices():
    devices = ["cpu"]
    cuda = next((b for b in tileskip.backends() if b["name"] == "cuda"), None)
    if torch.cuda.is_available() and cuda is not None and cuda["available"]:
        devices.append("cuda")
    return devices


DEVICES = _devices()


def _operands(device, m=96, k=80, n=72, dtype=torch.float32):
    a = tileskip.generate("blocks", m, k, density=0.25, operand="A", block=16, seed=3)
    b = tileskip.generate("blocks", k, n, density=0.5, operand="B", block=16, seed=4)
    return torch.from_numpy(a).to(device, dtype), torch.from_numpy(b).to(device, dtype)


@pytest.mark.parametrize("device", DEVICES)
def test_the_operator_gives_the_dense_product(device):
    a, b = _operands(device)
    for kernel in ("auto", "pipelined", "joint-8x32"):
        c = torch.ops.tileskip.matmul(a, b, kernel)
        assert c.device == a.device and c.dtype == torch.float32 and c.shape == (96, 72)
        torch.testing.assert_close(c, a @ b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_sixteen_bit_inputs_give_c_in_their_type(device, dtype):
    a, b = _operands(device, dtype=dtype)
    c = torch.ops.tileskip.matmul(a, b, "auto")
    assert c.dtype == dtype and c.device == a.device
    torch.testing.assert_close(c, (a.float() @ b.float()).to(dtype))


@pytest.mark.parametrize("device", DEVICES)
def test_opcheck_passes(device):
    # The schema, the fake implementation against the real one, and the autograd registration.
    a, b = _operands(device, 40, 24, 32)
    a.requires_grad_(True)
    b.requires_grad_(True)
    torch.library.opcheck(torch.ops.tileskip.matmul.default, (a, b, "auto"))


@pytest.mark.parametrize("device", DEVICES)
def test_gradients_equal_the_dense_ones(device):
    a, b = _operands(device)
    weight = torch.randn(96, 72, device=device, generator=torch.Generator(device).manual_seed(5))
    ours_a, ours_b = a.clone().requires_grad_(True), b.clone().requires_grad_(True)
    (torch.ops.tileskip.matmul(ours_a, ours_b, "auto") * weight).sum().backward()
    dense_a, dense_b = a.clone().requires_grad_(True), b.clone().requires_grad_(True)
    ((dense_a @ dense_b) * weight).sum().backward()
    torch.testing.assert_close(ours_a.grad, dense_a.grad, rtol=1e-5, atol=1e-4)
    torch.testing.assert_close(ours_b.grad, dense_b.grad, rtol=1e-5, atol=1e-4)
    only_a = a.clone().requires_grad_(True)
    torch.ops.tileskip.matmul(only_a, b, "auto").sum().backward()  # B needs no gradient
    torch.testing.assert_close(only_a.grad, torch.ones(96, 72, device=device) @ b.t(), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("device", DEVICES)
def test_compiles_without_a_graph_break(device):
    a, b = _operands(device)

    def layer(x, w):
        return torch.relu(torch.ops.tileskip.matmul(x, w, "auto")) * 2.0

    explanation = torch._dynamo.explain(layer)(a, b)
    assert explanation.graph_break_count == 0, explanation.break_reasons
    compiled = torch.compile(layer, backend="aot_eager", fullgraph=True)
    torch.testing.assert_close(compiled(a, b), layer(a, b))


def test_bad_operands_are_refused_before_anything_runs():
    a, b = _operands("cpu")
    with pytest.raises(RuntimeError, match="A's columns must equal B's rows"):
        torch.ops.tileskip.matmul(a, a, "auto")
    with pytest.raises(RuntimeError, match="float32, float16, bfloat16 or float64"):
        torch.ops.tileskip.matmul(a.to(torch.int32), b, "auto")
    with pytest.raises(ValueError, match="unknown kernel"):
        torch.ops.tileskip.matmul(a, b, "no-such-kernel")


@pytest.mark.skipif("cuda" not in DEVICES, reason="needs the cuda backend and a CUDA device")
def test_the_same_c_from_numpy_and_from_the_operator():
    # Where the same kernel runs, bit for bit.
    a, b = _operands("cpu")
    for kernel in ("pipelined", "joint-8x32"):
        host = tileskip.matmul(a.numpy(), b.numpy(), kernel=kernel, backend="cuda")
        device = torch.ops.tileskip.matmul(a.cuda(), b.cuda(), kernel).cpu().numpy()
        assert np.array_equal(host, device), kernel
