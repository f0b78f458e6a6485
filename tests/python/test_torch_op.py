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
def test_a_block_sparse_linear_keeps_only_its_blocks_and_is_their_linear(device):
    torch.manual_seed(0)
    layer = tileskip.nn.BlockSparseLinear(96, 80, block=16, density=0.25, seed=1).to(device)
    assert abs(layer.density - 0.25) < 0.02 and layer.weight.shape == (80, 96)
    assert layer.weight_blocks.shape == (layer.kept_blocks, 16, 16)
    # The parameters are the kept blocks: a quarter of nn.Linear's weight (and so of its gradient and
    # AdamW's two moments).
    assert sum(p.numel() for p in layer.parameters()) == layer.kept_blocks * 256 + 80
    assert torch.equal(layer.mask.repeat_interleave(16, 0).repeat_interleave(16, 1)[:80, :96] == 0, layer.weight == 0) or \
        torch.count_nonzero(layer.weight * (~layer.mask.repeat_interleave(16, 0).repeat_interleave(16, 1)[:80, :96])) == 0
    x = torch.randn(3, 5, 96, device=device)
    expected = torch.nn.functional.linear(x, layer.weight, layer.bias)
    torch.testing.assert_close(layer(x), expected, rtol=1e-5, atol=1e-5)
    layer.kernel = "auto"  # through the tileskip operator, on Wᵀ
    torch.testing.assert_close(layer(x), expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("device", DEVICES)
def test_its_gradients_are_a_masked_dense_models_at_its_blocks(device):
    torch.manual_seed(5)
    layer = tileskip.nn.BlockSparseLinear(70, 40, block=16, density=0.4, seed=2).to(device, torch.float64)  # partial blocks
    x = torch.randn(9, 70, device=device, dtype=torch.float64, requires_grad=True)
    w = layer.weight.detach().clone().requires_grad_(True)
    mask = layer.mask.repeat_interleave(16, 0).repeat_interleave(16, 1)[:40, :70].to(torch.float64)
    layer(x).pow(2).sum().backward()
    xd = x.detach().clone().requires_grad_(True)
    torch.nn.functional.linear(xd, w * mask, layer.bias.detach()).pow(2).sum().backward()
    torch.testing.assert_close(x.grad, xd.grad)
    # dW at the kept blocks is the dense gradient there; nothing else exists to receive one.
    grad_w = torch.zeros(48, 80, dtype=torch.float64, device=device)
    grad_w[:40, :70] = w.grad * mask
    blocks = grad_w.reshape(3, 16, 5, 16).permute(0, 2, 1, 3)[layer.mask]
    torch.testing.assert_close(layer.weight_blocks.grad, blocks)
    torch.testing.assert_close(layer.bias.grad, (2 * torch.nn.functional.linear(xd, w * mask, layer.bias.detach())).sum(0).detach())


@pytest.mark.parametrize("device", DEVICES)
def test_from_dense_keeps_the_largest_blocks(device):
    torch.manual_seed(1)
    linear = torch.nn.Linear(64, 48).to(device)
    with torch.no_grad():
        linear.weight[16:32, 32:48] *= 100.0  # the one block that must survive at density 1/12
    layer = tileskip.nn.BlockSparseLinear.from_dense(linear, block=16, density=1 / 12)
    assert layer.kept_blocks == 1 and layer.mask[1, 2]
    torch.testing.assert_close(layer.weight[16:32, 32:48], linear.weight[16:32, 32:48])
    assert torch.count_nonzero(layer.weight).item() == 16 * 16
    x = torch.randn(7, 64, device=device)
    torch.testing.assert_close(layer(x), torch.nn.functional.linear(x, layer.weight, linear.bias), rtol=1e-5, atol=1e-4)
    back = layer.to_dense()
    assert type(back) is torch.nn.Linear
    torch.testing.assert_close(back.weight, layer.weight)


@pytest.mark.parametrize("device", DEVICES)
def test_training_follows_a_masked_dense_model(device):
    torch.manual_seed(2)
    sparse = torch.nn.Sequential(tileskip.nn.BlockSparseLinear(64, 64, block=16, density=0.5, seed=3), torch.nn.ReLU(),
                                 tileskip.nn.BlockSparseLinear(64, 8, block=16, density=0.5, seed=4)).to(device)
    masks = [m.mask.repeat_interleave(16, 0).repeat_interleave(16, 1)[: m.out_features, : m.in_features].float()
             for m in (sparse[0], sparse[2])]
    dense = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 8)).to(device)
    with torch.no_grad():
        for d, s in ((dense[0], sparse[0]), (dense[2], sparse[2])):
            d.weight.copy_(s.weight)
            d.bias.copy_(s.bias)
    x, target = torch.randn(32, 64, device=device), torch.randn(32, 8, device=device)
    # AdamW's decay only reaches what exists: the dense model's masked weights see none, as the
    # packed one's missing blocks see none.
    optimizers = [torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.0) for model in (sparse, dense)]
    for _ in range(20):
        losses = []
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
            losses.append(loss.item())
        assert abs(losses[0] - losses[1]) <= 1e-3 * max(1.0, abs(losses[1])), losses
    state = sum(t.numel() for group in optimizers[0].state.values() for t in group.values() if torch.is_tensor(t) and t.dim() > 0)
    dense_state = sum(t.numel() for group in optimizers[1].state.values() for t in group.values() if torch.is_tensor(t) and t.dim() > 0)
    assert state < 0.6 * dense_state  # AdamW's moments follow the parameters: half the blocks, half the state


def test_state_dicts_and_conversions_round_trip(tmp_path):
    torch.manual_seed(3)
    layer = tileskip.nn.BlockSparseLinear(64, 48, block=16, density=0.3, seed=5)
    again = tileskip.nn.BlockSparseLinear(64, 48, block=16, density=0.3, seed=5)
    with torch.no_grad():
        again.weight_blocks.zero_()
    torch.save(layer.state_dict(), tmp_path / "layer.pt")
    again.load_state_dict(torch.load(tmp_path / "layer.pt"))
    assert set(layer.state_dict()) == {"weight_blocks", "bias", "indptr", "indices", "block_rows"}
    torch.testing.assert_close(again.weight, layer.weight)
    bsr = layer.to_sparse_bsr()
    assert bsr.layout == torch.sparse_bsr
    torch.testing.assert_close(bsr.to_dense(), layer.weight)
    torch.testing.assert_close(tileskip.nn.BlockSparseLinear.from_sparse_bsr(bsr, layer.bias).weight, layer.weight)
    packed = layer.to_packed()
    assert isinstance(packed, tileskip.PackedMatrix) and packed.kept_blocks == layer.kept_blocks
    np.testing.assert_array_equal(packed.to_dense(), layer.weight.detach().numpy())
    packed.save(tmp_path / "w.npz")
    loaded = tileskip.nn.BlockSparseLinear.from_packed(tileskip.PackedMatrix.load(tmp_path / "w.npz"), layer.bias)
    torch.testing.assert_close(loaded.weight, layer.weight)
    with pytest.raises(ValueError, match="partial"):
        tileskip.nn.BlockSparseLinear(70, 40, block=16).to_sparse_bsr()


def test_sparsify_replaces_the_linears_a_filter_accepts():
    torch.manual_seed(4)
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(),
                                torch.nn.Sequential(torch.nn.Linear(128, 64), torch.nn.Linear(64, 10)))
    x = torch.randn(5, 64)
    keep_head = tileskip.sparsify_(model, block=16, density=0.5, filter_fn=lambda module, name: name != "2.1")
    assert keep_head is model
    assert isinstance(model[0], tileskip.nn.BlockSparseLinear) and isinstance(model[2][0], tileskip.nn.BlockSparseLinear)
    assert type(model[2][1]) is torch.nn.Linear  # the filter kept the head dense
    assert abs(model[0].density - 0.5) < 1e-9 and model(x).shape == (5, 10)


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
    with pytest.raises(ValueError, match="16, 32, 64 or 128"):
        tileskip.nn.BlockSparseLinear(32, 32, block=8)
    with pytest.raises(ValueError, match="needs one of 2 x 2"):
        tileskip.nn.BlockSparseLinear(32, 32, block=16, mask=torch.ones(3, 2, dtype=torch.bool))
    with pytest.raises(ValueError, match="sparse_bsr"):
        tileskip.nn.BlockSparseLinear.from_sparse_bsr(torch.ones(16, 16))


# ---- tileskip.nn.SparseMLP


def _relu_block(device, dtype=torch.float32, cold=-3.0):
    # A ReLU block whose every third neuron rarely fires (a large negative bias): cold neurons spread
    # through the hidden width, as a trained model's are, so no 8-column group of H is ever dead.
    torch.manual_seed(2)
    fc1, fc2 = torch.nn.Linear(48, 160), torch.nn.Linear(160, 40)
    with torch.no_grad():
        fc1.bias[1::3] += cold
    return fc1.to(device, dtype), fc2.to(device, dtype)


@pytest.mark.parametrize("device", DEVICES)
def test_a_sparse_mlp_is_linear_relu_linear(device):
    fc1, fc2 = _relu_block(device)
    dense = torch.nn.Sequential(fc1, torch.nn.ReLU(), fc2)
    mlp = tileskip.nn.SparseMLP.from_dense(fc1, fc2)
    assert mlp.weight1.shape == (160, 48) and mlp.weight2.shape == (40, 160)
    x = torch.randn(3, 50, 48, device=device, generator=torch.Generator(device).manual_seed(3))
    assert (mlp.hidden(x) == 0).float().mean() > 0.6  # the zeros it is for
    ours = mlp(x)
    assert ours.shape == (3, 50, 40)
    torch.testing.assert_close(ours, dense(x), rtol=1e-5, atol=1e-5)
    ours.square().sum().backward()
    dense(x).square().sum().backward()
    for mine, theirs in ((mlp.weight1, fc1.weight), (mlp.bias1, fc1.bias), (mlp.weight2, fc2.weight), (mlp.bias2, fc2.bias)):
        torch.testing.assert_close(mine.grad, theirs.grad, rtol=1e-4, atol=1e-4)
    without_bias = tileskip.nn.SparseMLP(48, 64, activation="none", bias=False).to(device)
    torch.testing.assert_close(without_bias(x), x @ without_bias.weight1.t() @ without_bias.weight2.t(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("device", DEVICES)
def test_reorder_keeps_the_outputs_and_gathers_the_live_columns(device):
    fc1, fc2 = _relu_block(device)
    mlp = tileskip.nn.SparseMLP.from_dense(fc1, fc2)
    x = torch.randn(256, 48, device=device, generator=torch.Generator(device).manual_seed(4))
    h, before = mlp.hidden(x), mlp(x)
    tiles = [(h[t:t + 64] != 0).any(dim=0).float().mean().item() for t in range(0, 256, 64)]
    report = mlp.reorder_(x, rows=64)
    torch.testing.assert_close(mlp(x), before, rtol=1e-5, atol=1e-5)  # the same layer
    assert sorted(report["order"].tolist()) == list(range(160))
    fired = (mlp.hidden(x) != 0).sum(dim=0)
    assert bool((fired[:-1] >= fired[1:]).all()), "most firing first"
    torch.testing.assert_close(mlp.hidden(x), h[:, report["order"]])
    # A tile's live columns are the same set in any order; their 8-column groups are fewer sorted.
    assert report["live_before"] == pytest.approx(sum(tiles) / len(tiles)) == pytest.approx(report["live_after"])
    assert report["live_before"] < 0.9
    assert report["live_groups_before"] == 1.0 and report["live_groups_after"] < 0.8
    assert tileskip.nn.SparseMLP(48, 16, kernel="compact-mma-64").to(device).reorder_(x)["rows"] == 64  # the kernel's tile


@pytest.mark.parametrize("device", DEVICES)
def test_a_sparse_mlp_compiles_without_a_graph_break(device):
    mlp = tileskip.nn.SparseMLP(48, 96, 24).to(device)
    x = torch.randn(40, 48, device=device)
    explanation = torch._dynamo.explain(mlp)(x)
    assert explanation.graph_break_count == 0, explanation.break_reasons
    compiled = torch.compile(mlp, backend="aot_eager", fullgraph=True)
    torch.testing.assert_close(compiled(x), mlp(x))
    compiled(x).sum().backward()


@pytest.mark.skipif("cuda" not in DEVICES, reason="needs the cuda backend and a CUDA device")
def test_a_bf16_sparse_mlp_runs_a_compaction_kernel_on_cuda():
    kernel = "compact-wgmma-128" if torch.cuda.get_device_capability() == (9, 0) else "compact-mma-64"
    fc1, fc2 = _relu_block("cuda", torch.bfloat16)
    mlp = tileskip.nn.SparseMLP.from_dense(fc1, fc2, kernel=kernel)
    # 304 tokens: W2's gradient multiplies over the tokens, whose count a 16-bit kernel takes in whole 16-byte rows.
    x = torch.randn(304, 48, device="cuda", dtype=torch.bfloat16, generator=torch.Generator("cuda").manual_seed(5))
    mlp.reorder_(x)
    y = mlp(x)
    h = mlp.hidden(x)
    assert y.dtype == torch.bfloat16
    expected = (h.float() @ mlp.weight2.t().float() + mlp.bias2.float()).to(torch.bfloat16)
    torch.testing.assert_close(y, expected, rtol=1.6e-2, atol=1e-2)
    y.float().square().sum().backward()
    assert all(bool(p.grad.isfinite().all()) for p in mlp.parameters())


def test_sparse_mlp_refuses_bad_settings():
    with pytest.raises(ValueError, match="activation 'gelu'"):
        tileskip.nn.SparseMLP(8, 16, activation="gelu")
    with pytest.raises(ValueError, match="hidden_features 0"):
        tileskip.nn.SparseMLP(8, 0)
    with pytest.raises(ValueError, match="the hidden widths must match"):
        tileskip.nn.SparseMLP.from_dense(torch.nn.Linear(8, 16), torch.nn.Linear(12, 8))
    with pytest.raises(ValueError, match="both have a bias"):
        tileskip.nn.SparseMLP.from_dense(torch.nn.Linear(8, 16), torch.nn.Linear(16, 8, bias=False))
    mlp = tileskip.nn.SparseMLP(8, 16)
    with pytest.raises(ValueError, match="sample has 9 features; the layer takes 8"):
        mlp.reorder_(torch.ones(4, 9))
    with pytest.raises(ValueError, match="rows 0"):
        mlp.reorder_(torch.ones(4, 8), rows=0)


@pytest.mark.parametrize("device", DEVICES)
def test_a_compaction_kernels_backward_gathers_only_where_a_has_zeros(device, monkeypatch):
    # dB = Aᵀ·dC runs the compaction kernel on A's columns; dA = dC·Bᵀ, whose A is the dense dC,
    # is torch's own product. Both gradients equal the dense ones.
    kernel = "compact-64" if device == "cpu" else (
        "compact-wgmma-128" if torch.cuda.get_device_capability() == (9, 0) else "compact-mma-64")
    dtype = torch.float32 if device == "cpu" else torch.bfloat16
    a = torch.from_numpy(tileskip.generate("neurons", 96, 80, density=0.1, operand="A", seed=6)).to(device, dtype)
    b = torch.randn(80, 72, device=device, generator=torch.Generator(device).manual_seed(7)).to(dtype)
    ran = []
    for name in ("_matmul", "_matmul_cuda_tensors"):
        original = getattr(tileskip.ops, name)

        def counted(x, y, *args, original=original, **kwargs):
            ran.append(tuple(x.shape))
            return original(x, y, *args, **kwargs)

        monkeypatch.setattr(tileskip.ops, name, counted)
    ours_a, ours_b = a.clone().requires_grad_(True), b.clone().requires_grad_(True)
    torch.ops.tileskip.matmul(ours_a, ours_b, kernel).float().square().sum().backward()
    assert ran == [(96, 80), (80, 96)], "the forward product and dB = Aᵀ·dC through the kernel, dA not"
    dense_a, dense_b = a.clone().float().requires_grad_(True), b.clone().float().requires_grad_(True)
    (dense_a @ dense_b).square().sum().backward()
    tolerance = {"rtol": 1e-4, "atol": 1e-3} if dtype == torch.float32 else {"rtol": 2e-2, "atol": 5e-1}
    torch.testing.assert_close(ours_a.grad.float(), dense_a.grad, **tolerance)
    torch.testing.assert_close(ours_b.grad.float(), dense_b.grad, **tolerance)
