"""webtorch as `import torch` (webtorch.install_as_torch): the alias itself, and unmodified libraries
(tests/as_torch/lib_*.py) run in a subprocess where real torch is hidden, compared with the same
program under real torch: floats within 1e-5 of the reference's scale, integers (tokens) identical,
on cpu and webgpu. Each library's test skips when the library is not installed (scripts/setup.sh
pins them)."""
import importlib.util
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUN = os.path.join(ROOT, "tests", "as_torch", "run.py")


def _python(args, code=None, timeout=600):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("WEBTORCH_AS_TORCH", None)
    cmd = [sys.executable] + (["-c", code] if code is not None else args)
    result = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    assert result.returncode == 0, f"{' '.join(cmd[1:3])} failed:\n{result.stdout[-3000:]}\n{result.stderr[-6000:]}"
    return result.stdout


def compare(got, expected, where, rtol=1e-5):
    """Logits, losses, outputs, gradients within rtol of torch's scale."""
    assert got.keys() == expected.keys(), where
    for name, e in expected.items():
        a = got[name]
        if isinstance(e, np.ndarray) and e.dtype.kind == "f":
            assert a.shape == e.shape, f"{where} {name}: shape {a.shape} vs torch {e.shape}"
            scale = max(float(np.abs(e).max(initial=0.0)), 1e-30)
            err = float(np.abs(a - e).max(initial=0.0))
            assert err <= rtol * scale, f"{where} {name}: max error {err:.3g} vs torch's scale {scale:.3g}"
        elif isinstance(e, np.ndarray):
            assert a.dtype.kind == e.dtype.kind and np.array_equal(a, e), f"{where} {name}: {a} vs torch {e}"
        else:
            assert a == e, f"{where} {name}: {a!r} vs torch {e!r}"


_reference = {}
_grouped = set()  # programs of GROUP already run under webtorch in this session


def run_library(program, tmp_path_factory, devices=("cpu", "webgpu"), rtol=None):
    """The program under real torch (once per session), then under webtorch-as-torch on each device (one
    process for all: the libraries import once). A program of GROUP runs with the group's other installed
    programs in one torch and one webtorch process, once per session. rtol: {device: tolerance} where 1e-5
    cannot hold."""
    name = program.partition(":")[0]
    members = [p for p, modules in GROUP.items() if not _missing(modules)] if program in GROUP else [program]
    if program not in _reference:
        workdir = str(tmp_path_factory.mktemp(name))
        _python([RUN, "torch", "+".join(members), "cpu", workdir])
        for member in members:
            with open(os.path.join(workdir, f"{member.partition(':')[0]}-torch-cpu.pkl"), "rb") as f:
                _reference[member] = workdir, pickle.load(f)
    workdir, expected = _reference[program]
    if program not in _grouped:
        _python([RUN, "webtorch", "+".join(members), ",".join(devices), workdir])
        _grouped.update(members if program in GROUP else [])
    for device in devices:
        with open(os.path.join(workdir, f"{name}-webtorch-{device}.pkl"), "rb") as f:
            got = pickle.load(f)
        assert "error" not in got or "error" in expected, f"{program} on {device} raised:\n{got['error']}"
        compare(got, expected, f"{program} on {device}", (rtol or {}).get(device, 1e-5))


def _missing(modules):
    return [m for m in modules if importlib.util.find_spec(m) is None]


def needs(*modules):
    missing = _missing(modules)
    return pytest.mark.skipif(bool(missing), reason=f"not installed: {missing} (scripts/setup.sh)")


# Libraries whose programs run together (one torch and one webtorch process for all; the tests stay on one
# xdist worker): {program: the modules it needs}
GROUP = {"lib_einops": ("einops",), "lib_transformers:bert,gpt2,llama,qwen2,t5,bart": ("transformers",),
         "lib_metrics": ("torchmetrics",), "lib_peft:lora,dora,ia3": ("peft", "transformers"), "lib_diffusers": ("diffusers",), "lib_kornia": ("kornia",),
         "lib_torchdiffeq": ("torchdiffeq",), "lib_lucidrains": ("x_transformers", "vit_pytorch"),
         "lib_torch_optimizer": ("torch_optimizer",), "lib_zuko": ("zuko",)}
grouped = pytest.mark.xdist_group("as_torch_group")


@grouped
@needs("einops")
def test_einops(tmp_path_factory):
    run_library("lib_einops", tmp_path_factory)


ALIAS_CHECKS = r"""
import importlib, importlib.metadata, json, pickle, sys
sys.path.insert(0, "tests/as_torch")
from run import HideRealTorch
sys.meta_path.insert(0, HideRealTorch())
import webtorch
assert str(webtorch.float32) == "webtorch.float32"   # names are webtorch's until the alias is installed
webtorch.install_as_torch()
import torch, torch.nn.functional as F, torch.nn.modules.activation, torch.utils.data
from torch.nn.modules.activation import Tanh
from torch.nn.parameter import Parameter
assert torch is webtorch and F is webtorch.nn.functional and torch.nn.modules.activation is webtorch.nn.modules.activation
assert Tanh is webtorch.nn.Tanh and Parameter is webtorch.nn.Parameter
assert importlib.metadata.version("torch") == "2.13.0" and torch.__version__ == "2.13.0"
assert torch.__version__ >= "2.1" and torch.__version__ < (2, 14) and torch.__webtorch_version__ == "0.1.0"
assert "torch" in importlib.metadata.packages_distributions()
assert str(torch.float32) == "torch.float32" and repr(torch.Size([2, 3])) == "torch.Size([2, 3])" and torch.torch is torch
assert str(torch.float32).replace("torch.", "") == "float32"
assert Tanh.__module__ == "torch.nn.modules.activation" and torch.nn.Linear.__module__ == "torch.nn.modules.linear"
assert torch.Tensor.__module__ == "torch" and Parameter.__module__ == "torch.nn.parameter"
assert torch.nn.Module.__module__ == "torch.nn.modules.module" and torch.dtype.__module__ == "torch"
assert torch.utils.data.Dataset.__module__ == "torch.utils.data.dataset"
model = pickle.loads(pickle.dumps(torch.nn.Sequential(torch.nn.Linear(2, 3), Tanh())))
assert type(model[1]) is Tanh and model[0].weight.shape == (3, 2)
classes = [Tanh, torch.nn.Linear, torch.nn.Module, torch.nn.Parameter, torch.Tensor, torch.float16, torch.Size]
blob = pickle.dumps(classes)
assert b"torch.nn.modules.activation" in blob and b"webtorch" not in blob
assert pickle.loads(blob) == classes
paths = [f"{c.__module__}.{c.__qualname__}" for c in classes[:5]]
for path, c in zip(paths, classes):   # a class path saved as text (configs) imports back
    module, _, name = path.rpartition(".")
    assert getattr(importlib.import_module(module), name) is c, path
print(json.dumps(paths))
print(blob.hex())
"""


def test_alias_names_metadata_and_class_paths():
    """The alias: the same module objects, a torch distribution and version, torch.* names, and
    class paths (pickled classes and dtypes, paths saved as text) that real torch resolves to its own
    classes, and back. Pickled module instances stay within one library (their state differs)."""
    env = dict(os.environ, PYTHONPATH=ROOT)
    result = subprocess.run([sys.executable, "-c", ALIAS_CHECKS], env=env, capture_output=True, timeout=300, cwd=ROOT)
    assert result.returncode == 0, result.stderr.decode()[-4000:]
    import json
    import torch
    paths, blob = result.stdout.decode().splitlines()[-2:]  # real torch reads the class paths written under the alias
    assert pickle.loads(bytes.fromhex(blob)) == [torch.nn.Tanh, torch.nn.Linear, torch.nn.Module, torch.nn.Parameter, torch.Tensor,
                                  torch.float16, torch.Size]
    assert json.loads(paths) == ["torch.nn.modules.activation.Tanh", "torch.nn.modules.linear.Linear",
                                 "torch.nn.modules.module.Module", "torch.nn.parameter.Parameter", "torch.Tensor"]
    # and the other direction: a pickle real torch writes loads under webtorch-as-torch
    blob = pickle.dumps([torch.nn.ReLU, torch.nn.modules.flatten.Flatten, torch.bfloat16])
    code = ("import pickle, sys; sys.path.insert(0, 'tests/as_torch'); from run import HideRealTorch; "
            "sys.meta_path.insert(0, HideRealTorch()); import webtorch; webtorch.install_as_torch(); "
            "m = pickle.loads(sys.stdin.buffer.read()); "
            "assert m == [webtorch.nn.ReLU, webtorch.nn.Flatten, webtorch.bfloat16], m")
    result = subprocess.run([sys.executable, "-c", code], input=blob, env=env, capture_output=True, timeout=300,
                            cwd=ROOT)
    assert result.returncode == 0, result.stderr.decode()[-4000:]


def test_alias_refuses_after_real_torch_and_env_opt_in():
    """install_as_torch() after real torch raises; WEBTORCH_AS_TORCH=1 installs the alias with no code."""
    code = ("import torch, webtorch\ntry:\n    webtorch.install_as_torch()\nexcept RuntimeError as e:\n"
            "    assert 'real torch is already imported' in str(e), e\nelse:\n    raise SystemExit('no refusal')\n"
            "import sys; assert sys.modules['torch'] is torch")
    _python(None, code=code)
    env = dict(os.environ, PYTHONPATH=ROOT, WEBTORCH_AS_TORCH="1")
    # at interpreter start: the wheel's webtorch_as_torch.pth imports webtorch when the variable is set
    code = ("import site, sys; sys.path.insert(0, 'tests/as_torch'); from run import HideRealTorch; "
            "sys.meta_path.insert(0, HideRealTorch()); assert 'webtorch' not in sys.modules; site.addsitedir('.'); "
            "assert 'webtorch' in sys.modules; import torch, webtorch; assert torch is webtorch")
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-4000:]


@grouped
@needs("transformers")
def test_transformers(tmp_path_factory):
    """BERT, GPT-2, Llama, Qwen2 (grouped-query attention), T5 and BART from tiny configs: logits,
    generate() tokens, a training step, save_pretrained -> from_pretrained."""
    run_library("lib_transformers:bert,gpt2,llama,qwen2,t5,bart", tmp_path_factory)


@needs("timm", "torchvision")
def test_vision_classifiers(tmp_path_factory):
    """timm's create_model of six families at their test_* sizes (resnet, vit, convnext, efficientnet,
    byobnet, nfnet) and torchvision's squeezenet1_1 and VisionTransformer, at 32x32: eval logits, the
    first layer's gradient, a training-mode loss; cpu and webgpu in one process. (torchvision's
    resnet18 / mobilenet_v3_small match on cpu too, but take minutes on lavapipe: webtorch's conv
    tiles for a few output pixels over 512 channels waste ~60x; docs/import_torch.md.) "v2": tv_tensors
    (Tensor subclasses) through transforms.v2: flips, resize (antialiased too), crop, pad, box formats,
    rotate, affine (grid_sample), a Compose pipeline."""
    run_library("lib_vision:v2,timm:test_resnet,timm:test_vit,timm:test_convnext,timm:test_efficientnet,"
                "timm:test_byobnet,timm:test_nfnet,tv:squeezenet1_1,tv:vit", tmp_path_factory)


@grouped
@needs("torchmetrics")
def test_torchmetrics(tmp_path_factory):
    """Accuracy, F1, Precision, Recall, ConfusionMatrix, AUROC (multiclass, binary), AveragePrecision,
    MSE, MAE, R2, Pearson, MeanMetric over two batches, and two functional forms."""
    run_library("lib_metrics", tmp_path_factory)


@needs("sentence_transformers")
@pytest.mark.skipif(not os.path.exists(os.path.join(ROOT, ".cache", "minilm", "model.safetensors")),
                    reason="all-MiniLM-L6-v2 not unpacked (scripts/setup.sh)")
def test_sentence_transformers(tmp_path_factory):
    """encode() of all-MiniLM-L6-v2 (Transformer, mean pooling, Normalize; and without Normalize)."""
    run_library("lib_sentence", tmp_path_factory)


@grouped
@needs("peft", "transformers")
def test_peft(tmp_path_factory):
    """LoRA, DoRA and IA3 on a tiny Llama: logits, a training step, the adapter off, merge_and_unload."""
    run_library("lib_peft:lora,dora,ia3", tmp_path_factory)


@grouped
@needs("diffusers")
def test_diffusers(tmp_path_factory):
    """UNet2DModel and UNet2DConditionModel from tiny configs (prediction, gradient), DDPM's add_noise and
    step, a DDIM sampling loop."""
    run_library("lib_diffusers", tmp_path_factory)


@grouped
@needs("kornia")
def test_kornia(tmp_path_factory):
    """Filters, color conversions, geometry (warps, homographies, resize, pyramids), augmentations with
    fixed parameters, metrics; a gradient through warp_affine."""
    run_library("lib_kornia", tmp_path_factory)


@grouped
@needs("torchdiffeq")
def test_torchdiffeq(tmp_path_factory):
    """A neural ODE by euler, midpoint, rk4, dopri5, bosh3; gradients through the solver and by the adjoint
    method; an event-terminated solve. On webgpu within 1e-4: torchdiffeq's adaptive solvers keep time in
    float64, which WebGPU stores as float32 (docs/limits.md), so their step sizes differ slightly (the
    fixed-step solves agree within 3e-8)."""
    run_library("lib_torchdiffeq", tmp_path_factory, rtol={"webgpu": 1e-4})


@grouped
@needs("x_transformers", "vit_pytorch")
def test_lucidrains(tmp_path_factory):
    """x-transformers (a decoder LM with rotary embeddings, RMSNorm, GLU: logits, loss, gradient, greedy
    generate; an encoder with masks and memory key-values; ViTransformerWrapper) and vit-pytorch's ViT and
    SimpleViT (logits, a loss's gradient)."""
    run_library("lib_lucidrains", tmp_path_factory)


@grouped
@needs("torch_optimizer")
def test_torch_optimizer(tmp_path_factory):
    """AdaBound, Lamb, Yogi, DiffGrad, AdaBelief, QHAdam, MADGRAD, NovoGrad, Ranger (torch 1.x's deprecated
    addcmul_(value, t1, t2) overloads), Lookahead: three steps each, the parameters after them."""
    run_library("lib_torch_optimizer", tmp_path_factory)


@grouped
@needs("zuko")
def test_zuko(tmp_path_factory):
    """Conditional normalizing flows (MAF, NSF's rational-quadratic splines, NICE): log_prob, its gradient,
    the sample path (the inverse transform of given base draws); BoxUniform, DiagNormal."""
    run_library("lib_zuko", tmp_path_factory)
