"""nn.Module's state protocol against torch 2.13 (issue 22): state_dict / load_state_dict hooks,
_load_from_state_dict overrides, load_state_dict(assign=True), and the strict checks."""
import io

import pytest
import torch

import webtorch


def _net(T):
    T.manual_seed(0)
    net = T.nn.Sequential(T.nn.Linear(3, 2), T.nn.BatchNorm1d(2))
    with T.no_grad():
        net[0].weight.copy_(T.arange(6.0).reshape(2, 3) / 10)
        net[0].bias.fill_(0.5)
    return net


def _values(sd):
    return {k: v.tolist() for k, v in sd.items()}


def _hooks_run(T):
    seen = []
    net = _net(T)
    net.register_state_dict_pre_hook(lambda m, prefix, keep_vars: seen.append(("pre", type(m).__name__, prefix,
                                                                             keep_vars)))
    net[0].register_state_dict_post_hook(lambda m, sd, prefix, meta: seen.append(("post", prefix, sorted(sd),
                                                                                  meta)))
    h = net[1]._register_state_dict_hook(lambda m, sd, prefix, meta: {k: v for k, v in sd.items()
                                                                      if "num_batches" not in k})
    sd = net.state_dict()
    keys = list(sd)
    h.remove()
    meta = dict(net.state_dict()._metadata)

    # a load pre-hook renaming an old checkpoint's keys (as timm / transformers do)
    def rename(state_dict, prefix, local_metadata, strict, missing, unexpected, errors):
        for k in list(state_dict):
            if k.startswith(prefix + "w_old"):
                state_dict[prefix + "weight"] = state_dict.pop(k)
        seen.append(("load-pre", prefix, sorted(state_dict), local_metadata.get("version")))
    net[0]._register_load_state_dict_pre_hook(rename)
    net[1].register_load_state_dict_pre_hook(lambda m, state_dict, prefix, *rest: seen.append(
        ("load-pre-module", type(m).__name__, prefix)))

    def forgive(module, keys):
        seen.append(("load-post", type(module).__name__, list(keys.missing_keys), list(keys.unexpected_keys)))
        keys.missing_keys[:] = [k for k in keys.missing_keys if "num_batches" not in k]
    net.register_load_state_dict_post_hook(forgive)
    old = {("0.w_old" if k == "0.weight" else k): v * 2 for k, v in net.state_dict().items()
           if "num_batches" not in k}
    result = net.load_state_dict(old)
    return seen, keys, meta, repr(result), _values(net.state_dict()), sorted(old)


def test_state_dict_hooks_match_torch():
    got, want = _hooks_run(webtorch), _hooks_run(torch)
    assert got == want


class _Versioned:
    """A module overriding _load_from_state_dict to upgrade an old checkpoint (as torchvision's
    BatchNorm-era code does): the override, not load_state_dict, sees each module's keys."""

    @staticmethod
    def make(T):
        class Scaled(T.nn.Module):
            _version = 2

            def __init__(self):
                super().__init__()
                self.scale = T.nn.Parameter(T.ones(2))

            def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing, unexpected,
                                      errors):
                if local_metadata.get("version", 1) < 2 and prefix + "gain" in state_dict:
                    state_dict[prefix + "scale"] = state_dict.pop(prefix + "gain")
                super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing, unexpected,
                                              errors)
        return Scaled


def _override_run(T):
    outer = T.nn.Sequential(_Versioned.make(T)())
    sd = {"0.gain": T.tensor([3.0, 4.0])}
    r1 = outer.load_state_dict(sd)
    sd2 = outer.state_dict()
    return outer[0].scale.tolist(), repr(r1), sd2._metadata["0"], list(sd)


def test_load_from_state_dict_override_matches_torch():
    assert _override_run(webtorch) == _override_run(torch)


def _assign_run(T, device):
    net = T.nn.Linear(2, 2).to(device)
    net.bias.requires_grad_(False)
    w, b = T.full((2, 2), 3.0, device=device), T.zeros(2, device=device)
    p = T.nn.Parameter(T.ones(2, device=device), requires_grad=True)
    net.load_state_dict({"weight": w, "bias": b}, assign=True)
    w.add_(1)  # the parameter is w's memory, not a copy
    shared = net.weight.tolist()
    kinds = (type(net.weight).__name__, net.weight.requires_grad, type(net.bias).__name__, net.bias.requires_grad)
    net.load_state_dict({"weight": w, "bias": p}, assign=True)
    same_object = net.bias is p
    grads = p.requires_grad  # set from the module's parameter (False)
    net2 = T.nn.BatchNorm1d(2).to(device)
    rm = T.tensor([1.0, 2.0], device=device)
    net2.load_state_dict(dict(net2.state_dict(), running_mean=rm), assign=True)
    return shared, kinds, same_object, grads, net2.running_mean is rm, net2.training


@pytest.mark.parametrize("device", ["cpu", "webgpu"])
def test_load_state_dict_assign_uses_the_given_tensors(device):
    assert _assign_run(webtorch, device) == _assign_run(torch, "cpu")


def _errors_run(T):
    net = T.nn.Linear(2, 2)
    out = []
    for sd, strict in [({"weight": T.ones(3, 2), "bias": T.ones(2)}, True),
                       ({"weight": T.ones(2, 2)}, True), ({"weight": T.ones(2, 2)}, False),
                       ({"weight": T.ones(2, 2), "bias": T.ones(2), "extra.x": T.ones(1), "junk": T.ones(1)}, True),
                       ({"weight": T.ones(2, 2), "bias": [1.0, 2.0]}, True), ([1, 2], True)]:
        try:
            out.append(repr(net.load_state_dict(sd, strict=strict)))
        except (RuntimeError, TypeError) as e:
            out.append((type(e).__name__, str(e).replace("torch.Size(", "").replace("webtorch.Size(", "")
                        .replace("<class 'list'>", "list")))
    return out


def test_load_state_dict_errors_match_torch():
    got, want = _errors_run(webtorch), _errors_run(torch)
    for g, w in zip(got, want):
        if isinstance(w, tuple) and "size mismatch" in w[1]:
            assert g[0] == w[0] and "size mismatch for weight" in g[1]
        else:
            assert g == w


def test_state_dict_with_metadata_round_trips_through_torch():
    buf = io.BytesIO()
    webtorch.save(_net(webtorch).state_dict(), buf)
    buf.seek(0)
    sd = torch.load(buf)
    assert sd._metadata == _net(torch).state_dict()._metadata
    assert _values(sd) == _values(_net(torch).state_dict())
    buf = io.BytesIO()
    torch.save(_net(torch).state_dict(), buf)
    buf.seek(0)
    net = _net(webtorch)
    net.load_state_dict(webtorch.load(buf))
    assert _values(net.state_dict()) == _values(_net(torch).state_dict())
