"""torch.set_float32_matmul_precision: the API as torch has it, "highest" on the fp32 kernels, and
"high" / "medium" on the tensor-core kernel (matmul_subgroup_matrix.wgsl with float32 inputs split
or rounded to f16) only where the adapter offers subgroup matrices. lavapipe offers none, so the
kernel itself runs in bench/matmul_tc.mjs on a GPU that has them (docs/compatibility.md: float32 matmul precision);
here the routing is checked with the feature faked and the kernel launch recorded."""
import re
import string
import warnings

import pytest
import torch

import webtorch
from webtorch.backend import gpu, kernels
from webtorch.backend.webgpu import runtime

SHAPES = [(128, 64, 128), (3, 5, 7), (2, 128, 96, 64)]  # whole tiles, odd, batched


@pytest.fixture(autouse=True)
def _restore_precision():
    yield
    webtorch.set_float32_matmul_precision("highest")
    torch.set_float32_matmul_precision("highest")
    vars(runtime()).pop("run", None)  # monkeypatch's undo leaves the class's method as an instance attribute


def test_the_api_matches_torch():
    for T in (torch, webtorch):
        assert T.get_float32_matmul_precision() == "highest" and not T.backends.cuda.matmul.allow_tf32
        for p in ("high", "medium", "highest"):
            T.set_float32_matmul_precision(p)
            assert T.get_float32_matmul_precision() == p and T.backends.cuda.matmul.allow_tf32 == (p != "highest")
        with pytest.warns(UserWarning, match="is not one of 'highest', 'high', or 'medium'"):
            T.set_float32_matmul_precision("HIGH")
        assert T.get_float32_matmul_precision() == "highest"
        with pytest.raises(RuntimeError, match="expects a str"):
            T.set_float32_matmul_precision(3)
        T.backends.cuda.matmul.allow_tf32 = False
    webtorch.backends.cuda.matmul.allow_tf32 = True
    assert webtorch.get_float32_matmul_precision() == "high"


def _inputs(shape):
    g = torch.Generator().manual_seed(sum(shape))
    *batch, m, k, n = shape if len(shape) == 4 else (*shape,)
    a, b = torch.randn(*batch, m, k, generator=g), torch.randn(*batch, k, n, generator=g)
    return a, b, [webtorch.tensor(x.tolist(), device="webgpu") for x in (a, b)]


@pytest.mark.parametrize("shape", SHAPES)
def test_without_subgroup_matrices_every_precision_is_the_fp32_path(shape):
    a, b, (wa, wb) = _inputs(shape)
    assert "chromium-experimental-subgroup-matrix" not in webtorch.webgpu.features()  # lavapipe
    results = []
    for p in ("highest", "high", "medium"):
        webtorch.set_float32_matmul_precision(p)
        results.append((wa @ wb).tolist())
        results.append((wa @ wb.mT.contiguous().mT).tolist())  # column-major B
    assert all(r == results[0 if i % 2 == 0 else 1] for i, r in enumerate(results))  # bit-identical
    torch.testing.assert_close(torch.tensor(results[0]), a @ b)


def _fake_subgroup_matrices(monkeypatch, configs):
    """The adapter as if it offered subgroup matrices; returns the list kernel launches go to (not run)."""
    rt = runtime()
    monkeypatch.setattr(rt, "features", rt.features | {"chromium-experimental-subgroup-matrix"})
    monkeypatch.setattr(rt.driver, "adapter_info", {**rt.driver.adapter_info, "subgroup_max_size": 32,
                                                    "subgroup_matrix_configs": configs})
    launched = []
    real_run = rt.run

    def run(kernel, buffers, meta, groups):
        if kernel[0][0] == "matmul_subgroup_matrix":
            launched.append(kernel[0])
            return None
        return real_run(kernel, buffers, meta, groups)
    monkeypatch.setattr(rt, "run", run)
    return launched


F16_F32 = {"component_type": "f16", "result_component_type": "f32", "M": 16, "N": 16, "K": 16}


@pytest.mark.parametrize("precision, expected", [("highest", None), ("high", (True, True)),
                                                 ("medium", (True, False))])
def test_high_and_medium_route_float32_to_tensor_cores(monkeypatch, precision, expected):
    _, _, (wa, wb) = _inputs((128, 64, 128))
    reference = (wa @ wb).tolist()
    launched = _fake_subgroup_matrices(monkeypatch, [F16_F32])
    webtorch.set_float32_matmul_precision(precision)
    out = wa @ wb
    if expected is None:
        assert not launched and out.tolist() == reference
    else:
        assert len(launched) == 1 and launched[0][1] == "float32" and launched[0][-2:] == expected
    launched.clear()
    wa.half() @ wb.half()  # float16 goes there at every precision
    assert len(launched) == 1 and launched[0][-2:] == (False, False)


def test_fallbacks_where_the_tensor_core_kernel_does_not_apply(monkeypatch):
    _, _, (wa, wb) = _inputs((128, 64, 128))
    _, _, (oa, ob) = _inputs((3, 5, 7))
    reference, odd = (wa @ wb).tolist(), (oa @ ob).tolist()
    webtorch.set_float32_matmul_precision("high")
    launched = _fake_subgroup_matrices(monkeypatch, [{**F16_F32, "result_component_type": "f16"}])
    assert (wa @ wb).tolist() == reference and not launched  # no f16 -> f32 configuration
    launched = _fake_subgroup_matrices(monkeypatch, [F16_F32])
    assert (oa @ ob).tolist() == odd and not launched  # not whole tiles
    shifted = webtorch.cat([wa[:, :1], wa, wa[:, :1]], 1)[:, 1:65]  # whole tiles at an odd offset
    assert (shifted @ wb).tolist() == reference and not launched


def test_the_kernel_stages_float32_inputs_as_asked():
    f16, medium, high = (kernels.matmul_subgroup_matrix(webtorch.float32, (16, 16, 16), 32, (4, 4, 2, 2, 32), False,
                                                        False, f32, split)[1]
                         for f32, split in ((False, False), (True, False), (True, True)))
    assert "array<u32>" in f16 and "array<vec2<f32>>" not in f16
    assert "array<vec2<f32>>" in medium and "&a_lo_tile" not in medium and "const SPLIT = false" in medium
    assert "&a_lo_tile" in high and "&b_lo_tile" in high and "const SPLIT = true" in high
    assert "a_lo_tile: array<f16, BM * BK" in high and "a_lo_tile: array<f16, 1>" in medium  # lo tiles only when split


@pytest.mark.parametrize("out", [webtorch.float32, webtorch.float16])
def test_the_kernel_uses_the_current_subgroup_matrix_builtins(out):
    # the layout is the builtins' template argument; the bool-argument form draws "use of deprecated builtin"
    # from Chrome 156 / dawn.node on every call
    source = kernels.matmul_subgroup_matrix(out, (16, 16, 16), 32, (2, 4, 2, 2, 32), False, True, True, True, 4)[1]
    assert "subgroupMatrixLoad<Left, row_major>(" in source and "subgroupMatrixLoad<Right, col_major>(" in source
    assert "subgroupMatrixStore<row_major>(" in source
    assert not re.search(r"subgroupMatrix(Load<\w+>|Store)\(", source)


def test_unrolled_writes_each_block_out_with_its_index():
    source = "a\n  // unroll i < 2\n  x_#i;\n  // unroll j < 3\n  y_#i_#j = #j * #i;\n  // end j\n  // end i\nb\n"
    assert kernels.unrolled(source) == ("a\n  x_0;\n  y_0_0 = 0 * 0;\n  y_0_1 = 1 * 0;\n  y_0_2 = 2 * 0;\n"
                                        "  x_1;\n  y_1_0 = 0 * 1;\n  y_1_1 = 1 * 1;\n  y_1_2 = 2 * 1;\nb\n")
    # a block once per word (#o the word, #O in capitals); one whose bound is still a placeholder waits for
    # a call after the substitution
    words = "  // unroll o in a b\n  // unroll l < ${#O_N}\n  #o_#l = #O;\n  // end l\n  // end o\n"
    assert kernels.unrolled(words) == ("  // unroll l < ${A_N}\n  a_#l = A;\n  // end l\n"
                                       "  // unroll l < ${B_N}\n  b_#l = B;\n  // end l\n")
    assert kernels.unrolled(string.Template(kernels.unrolled(words)).substitute(A_N=1, B_N=2)) == \
        "  a_0 = A;\n  b_0 = B;\n  b_1 = B;\n"
    f16 = kernels.matmul_subgroup_matrix(webtorch.float16, (16, 16, 16), 32, (4, 4, 2, 2, 32), False, False,
                                         vec=8)[1]
    code = "\n".join(line.split("//")[0] for line in f16.splitlines())
    assert "#" not in code and "acc_3_3" in code and "array<vec4<u32>>" in code
    assert "b_tile[at + 2 * 3 + 1] = h.y;" in code and "b_next_1 = b[(b_origin + k0 * b_sk" in code


@pytest.mark.parametrize("dtype, offset, vec", [("float16", 0, 8), ("float16", 4, 4), ("float16", 2, 2),
                                                ("float32", 0, 4), ("float32", 2, 2)])
def test_the_widest_loads_the_strides_allow(monkeypatch, dtype, offset, vec):
    _, _, (wa, wb) = _inputs((128, 64, 128))
    wa, wb = wa.to(getattr(webtorch, dtype)), wb.to(getattr(webtorch, dtype))
    launched = _fake_subgroup_matrices(monkeypatch, [F16_F32])
    webtorch.set_float32_matmul_precision("medium")
    shifted = webtorch.cat([wa[:, :offset], wa], 1)[:, offset:] if offset else wa
    shifted @ wb
    assert len(launched) == 1 and launched[0][5] == vec


@pytest.mark.parametrize("m, memory, tiles", [(2048, 49152, (4, 4, 4, 2, 32)), (2048, 32768, (4, 4, 2, 2, 32)),
                                              (1024, 49152, (2, 4, 2, 2, 32)), (192, 49152, (2, 2, 2, 2, 32))])
def test_the_biggest_tile_that_fills_the_gpu_and_fits_its_workgroup_memory(monkeypatch, m, memory, tiles):
    a = webtorch.zeros(m, 64, dtype=webtorch.float16, device="webgpu")
    b = webtorch.zeros(64, m, dtype=webtorch.float16, device="webgpu")
    launched = _fake_subgroup_matrices(monkeypatch, [F16_F32])
    monkeypatch.setitem(runtime().limits, "max_compute_workgroup_storage_size", memory)
    a @ b
    assert len(launched) == 1 and launched[0][4] == tiles
