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


@pytest.mark.skipif("cuda" not in DEVICES, reason="needs the cuda backend and a CUDA device")
def test_sixteen_bit_cuda_tensors_run_the_kernels_of_their_type_as_they_are():
    a, b = _operands("cpu")
    for dtype, name in ((torch.bfloat16, "bf16"), (torch.float16, "fp16")):
        a16, b16 = a.to(dtype), b.to(dtype)
        # In place, the tensors' own words: the same C as NumPy operands rounded to the type.
        kernels = ["cublas", "mma", "auto"] + (["wgmma-joint-64x64"] if torch.cuda.get_device_capability() == (9, 0) else [])
        for kernel in kernels:
            c = tileskip.matmul(a16.cuda(), b16.cuda(), kernel=kernel)
            assert c.dtype == torch.float32 and c.is_cuda
            if kernel != "auto":
                host = tileskip.matmul(a.numpy(), b.numpy(), kernel=kernel, backend="cuda", dtype=name)
                assert np.array_equal(c.cpu().numpy(), host), (name, kernel)
            torch.testing.assert_close(c.cpu(), a16.float() @ b16.float(), rtol=1e-5, atol=1e-4)
        # A kernel of fp32 only gets them widened on the device.
        torch.testing.assert_close(tileskip.matmul(a16.cuda(), b16.cuda(), kernel="pipelined").cpu(), a16.float() @ b16.float(),
                                   rtol=1e-5, atol=1e-4)
    with pytest.raises(ValueError, match="K and N multiples of 8"):
        odd = torch.ones(16, 20, dtype=torch.bfloat16, device="cuda")
        tileskip.matmul(odd, torch.ones(20, 12, dtype=torch.bfloat16, device="cuda"), kernel="mma-joint-64x32")
        torch.cuda.synchronize()


# ---- tileskip.nn.BlockSparseLinear

import tileskip.nn  # noqa: E402


@pytest.mark.parametrize("device", DEVICES)
def test_a_block_sparse_linear_is_a_masked_linear(device):
    torch.manual_seed(0)
    layer = tileskip.nn.BlockSparseLinear(96, 80, block=16, density=0.25, seed=1).to(device)
    blocks = layer.mask.float().mean().item()
    assert abs(blocks - 0.25) < 0.02 and layer.weight.shape == (80, 96)
    assert torch.equal(layer.weight * layer.dense_mask(), layer.weight), "zero blocks hold zeros from the start"
    for moved in (layer, layer.to(torch.bfloat16)):  # Wᵀ row-major, so the forward pass copies no transpose
        assert moved.weight.t().is_contiguous() and moved._mask_t.dtype == moved.weight.dtype
    layer = layer.float()
    x = torch.randn(3, 5, 96, device=device)
    torch.testing.assert_close(layer(x), torch.nn.functional.linear(x, layer.weight, layer.bias), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("device", DEVICES)
def test_from_dense_keeps_the_largest_blocks(device):
    torch.manual_seed(1)
    linear = torch.nn.Linear(64, 48).to(device)
    with torch.no_grad():
        linear.weight[16:32, 32:48] *= 100.0  # the one block that must survive at density 1/12
    layer = tileskip.nn.BlockSparseLinear.from_dense(linear, block=16, density=1 / 12)
    assert layer.mask.sum().item() == 1 and layer.mask[1, 2]
    torch.testing.assert_close(layer.weight[16:32, 32:48], linear.weight[16:32, 32:48])
    assert torch.count_nonzero(layer.weight).item() == 16 * 16
    x = torch.randn(7, 64, device=device)
    torch.testing.assert_close(layer(x), torch.nn.functional.linear(x, layer.weight, linear.bias), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("device", DEVICES)
def test_training_keeps_the_pattern_and_follows_a_masked_dense_model(device):
    torch.manual_seed(2)
    sparse = torch.nn.Sequential(tileskip.nn.BlockSparseLinear(64, 64, block=16, density=0.5, seed=3), torch.nn.ReLU(),
                                 tileskip.nn.BlockSparseLinear(64, 8, block=16, density=0.5, seed=4)).to(device)
    masks = [m.dense_mask() for m in (sparse[0], sparse[2])]
    dense = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 8)).to(device)
    dense.load_state_dict({k: v for k, v in sparse.state_dict().items() if not k.endswith("mask")})
    x, target = torch.randn(32, 64, device=device), torch.randn(32, 8, device=device)
    optimizers = [torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.1) for model in (sparse, dense)]
    for _ in range(20):
        for model, optimizer, masked in ((sparse, optimizers[0], False), (dense, optimizers[1], True)):
            optimizer.zero_grad()
            if masked:  # the dense model sees the same pattern
                h = torch.relu(torch.nn.functional.linear(x, model[0].weight * masks[0], model[0].bias))
                y = torch.nn.functional.linear(h, model[2].weight * masks[1], model[2].bias)
            else:
                y = model(x)
            loss = torch.nn.functional.mse_loss(y, target)
            loss.backward()
            optimizer.step()
            if masked:
                dense_loss = loss.item()
            else:
                sparse_loss = loss.item()
        assert abs(sparse_loss - dense_loss) <= 1e-3 * max(1.0, abs(dense_loss)), (sparse_loss, dense_loss)
    for layer, mask in zip((sparse[0], sparse[2]), masks):
        assert torch.count_nonzero(layer.weight * (1 - mask)).item() == 0, "the zero blocks stay zero"
        assert torch.count_nonzero(layer.weight.grad * (1 - mask)).item() == 0, "no gradient outside the pattern"


@pytest.mark.parametrize("device", DEVICES)
def test_a_block_sparse_model_compiles_without_a_graph_break(device):
    model = torch.nn.Sequential(tileskip.nn.BlockSparseLinear(64, 64, block=16), torch.nn.GELU(),
                                tileskip.nn.BlockSparseLinear(64, 32, block=16)).to(device)
    x = torch.randn(16, 64, device=device)
    explanation = torch._dynamo.explain(model)(x)
    assert explanation.graph_break_count == 0, explanation.break_reasons
    compiled = torch.compile(model, backend="aot_eager", fullgraph=True)
    torch.testing.assert_close(compiled(x), model(x))
    compiled(x).sum().backward()  # and trains compiled


def test_block_sparse_linear_refuses_bad_settings():
    with pytest.raises(ValueError, match="density"):
        tileskip.nn.BlockSparseLinear(32, 32, density=0.0)
    with pytest.raises(ValueError, match="block"):
        tileskip.nn.BlockSparseLinear(32, 32, block=0)
    with pytest.raises(ValueError, match="needs one of 2 x 2"):
        tileskip.nn.BlockSparseLinear(32, 32, block=16, mask=torch.ones(3, 2, dtype=torch.bool))
