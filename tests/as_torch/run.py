"""Runs one library program of tests/as_torch/ in this process, under real torch or under webtorch
aliased as torch (real torch hidden by a meta-path blocker, then only webtorch.install_as_torch()):

    python tests/as_torch/run.py torch|webtorch PROGRAM[:ARG,ARG...][+PROGRAM...] DEVICE[,DEVICE] WORKDIR

PROGRAM (lib_<name>.py) defines run(ctx); several joined by "+" run in one process (torch, webtorch and
the libraries import once), each to its own results, where an exception is recorded as the result
"error" (its traceback) and the next program runs; ctx.args are the ARGs (say, model families). ctx.same_weights(model, key) makes both runs start from the
same weights (the torch run saves its initial state_dict in WORKDIR with torch.save, the webtorch run
loads it), ctx.out(name, value) records a result; the results go to WORKDIR/<program>-<mode>-<device>.pkl
as numpy arrays and plain values (tests/test_as_torch.py compares them)."""
import importlib.abc
import os
import pickle
import runpy
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))


class HideRealTorch(importlib.abc.MetaPathFinder):
    """The environment without torch: any torch import that webtorch's finder does not answer fails.
    Packages built on real torch's internals are hidden too (None in sys.modules: their import fails and
    importlib.util.find_spec says they are absent): transformers imports torchao when it is installed,
    and torchao needs torch._dynamo's internals."""
    EXTENSIONS = ("torchao",)

    def __init__(self):
        for name in self.EXTENSIONS:
            sys.modules[name] = None

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in ("torch", "torchgen"):
            raise ModuleNotFoundError(f"No module named {name!r} (real torch is hidden)", name=name)
        return None


class Context:
    def __init__(self, mode, device, workdir, program, args):
        self.mode, self.device, self.workdir, self.program, self.args = mode, device, workdir, program, args
        self.results = {}

    @property
    def reference(self):
        return self.mode == "torch"

    def path(self, name):
        return os.path.join(self.workdir, f"{self.program}-{name}")

    def same_weights(self, model, key="model"):
        import torch
        path = self.path(f"{key}.pt")
        if self.reference:
            torch.save(model.state_dict(), path)
        else:
            model.load_state_dict(torch.load(path))
        return model

    def same_input(self, make, key):
        """A random input both runs share (webtorch's generator draws other numbers than torch's)."""
        import torch
        path = self.path(f"{key}.pt")
        if self.reference:
            torch.save(make(), path)
        return torch.load(path)

    def out(self, name, value):
        import torch
        if isinstance(value, torch.Tensor):
            value = value.detach().cpu().clone()
            value = value.double() if value.is_floating_point() else value
            value = __import__("numpy").array(value.tolist())
        self.results[name] = value


def define_torchvision_ops():
    """PyPI's torchvision 0.28.0 is the CUDA build: its native ops do not load beside torch's CPU wheel,
    and its import registers fake kernels for two of them unconditionally. In the torch run their
    schemas are defined first, so torchvision (and transformers, which imports it) imports; the
    models compared here never call them."""
    import torch
    torch.library.define("torchvision::nms", "(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
    torch.library.define("torchvision::qnms", "(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")


def main():
    mode, specs, devices, workdir = sys.argv[1:5]
    if mode == "webtorch":
        sys.meta_path.insert(0, HideRealTorch())
        import webtorch
        webtorch.install_as_torch()
    else:
        define_torchvision_ops()
    sys.path.insert(0, HERE)
    grouped = "+" in specs
    for spec in specs.split("+"):
        program, _, args = spec.partition(":")
        for device in devices.split(","):  # one process for all devices: the libraries import once
            ctx = Context(mode, device, workdir, program, args.split(",") if args else [])
            try:
                runpy.run_path(os.path.join(HERE, f"{program}.py"))["run"](ctx)
            except Exception:
                if not grouped:
                    raise
                ctx.results = {"error": traceback.format_exc()}
            with open(os.path.join(workdir, f"{program}-{mode}-{device}.pkl"), "wb") as f:
                pickle.dump(ctx.results, f)


if __name__ == "__main__":
    main()
