"""nn.Sequential as a list: indexing (negative, slices keeping names), item assignment and deletion
(renumbered), insert, extend, and torch's IndexErrors; the same steps on torch and webtorch."""
import torch

import webtorch


def _steps(lib):
    nn = lib.nn
    out = []
    s = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 4), nn.Tanh())
    s[1] = nn.GELU()
    s[-1] = nn.Sigmoid()
    out += [[type(m).__name__ for m in s], list(s[1:3]._modules), type(s[-2]).__name__]
    del s[0]
    out += [list(s._modules), [type(m).__name__ for m in s]]
    s.insert(-1, nn.Identity())
    s.insert(0, nn.Dropout())
    s.insert(len(s), nn.ELU())
    out += [[type(m).__name__ for m in s], list(s._modules)]
    del s[1:3]
    out.append(list(s._modules))
    s.extend(nn.Sequential(nn.ReLU()))
    out.append([type(m).__name__ for m in s])
    for bad in (lambda: s[10], lambda: s.__setitem__(-10, nn.ReLU()), lambda: s.insert(20, nn.ReLU())):
        try:
            bad()
            out.append("no error")
        except Exception as e:  # noqa: BLE001 - the type and message are compared
            out.append((type(e).__name__, str(e)))
    return out


def test_sequential_list_operations_match_torch():
    assert _steps(webtorch) == _steps(torch)


def _observe(thing):
    """What a step leaves: module/parameter class names by key, or a value."""
    import collections.abc
    if hasattr(thing, "_modules") and type(thing).__name__ in ("ModuleList", "ModuleDict"):
        return [type(thing).__name__, [(k, type(m).__name__) for k, m in thing._modules.items()]]
    if hasattr(thing, "_parameters") and type(thing).__name__ in ("ParameterList", "ParameterDict"):
        keys = list(thing.keys()) if hasattr(thing, "keys") else list(range(len(thing)))
        return [type(thing).__name__, [(k, type(thing[k]).__name__, _value(thing[k])) for k in keys],
                sorted(dict(thing.named_parameters()))]
    if isinstance(thing, (list, tuple)) or isinstance(thing, collections.abc.KeysView):
        return [_observe(t) for t in thing]
    return type(thing).__name__ if hasattr(thing, "forward") else _value(thing)


def _value(v):
    return v.tolist() if hasattr(v, "tolist") else v


# (container, step) per row: a container is built fresh for each, the step's result and the container after
# it are compared; an exception's type and message are compared instead.
def _module_list(nn):
    return nn.ModuleList([nn.ReLU(), nn.Tanh(), nn.GELU()])


def _module_dict(nn):
    return nn.ModuleDict({"a": nn.ReLU(), "b": nn.Tanh()})


def _parameter_list(nn, t):
    return nn.ParameterList([nn.Parameter(t.ones(1)), t.zeros(2)])


def _parameter_dict(nn, t):
    return nn.ParameterDict({"w": nn.Parameter(t.ones(1)), "b": t.zeros(2)})


CONTAINER_CASES = {
    "ModuleList.insert": (_module_list, lambda c, nn, t: c.insert(1, nn.Sigmoid())),
    "ModuleList.insert negative": (_module_list, lambda c, nn, t: c.insert(-1, nn.Sigmoid())),
    "ModuleList.pop": (_module_list, lambda c, nn, t: c.pop(0)),
    "ModuleList.pop negative": (_module_list, lambda c, nn, t: c.pop(-1)),
    "ModuleList del": (_module_list, lambda c, nn, t: c.__delitem__(0)),
    "ModuleList del slice": (_module_list, lambda c, nn, t: c.__delitem__(slice(0, 2))),
    "ModuleList setitem negative": (_module_list, lambda c, nn, t: c.__setitem__(-1, nn.ELU())),
    "ModuleList getitem negative": (_module_list, lambda c, nn, t: c[-1]),
    "ModuleList getitem out of range": (_module_list, lambda c, nn, t: c[5]),
    "ModuleList slice": (_module_list, lambda c, nn, t: c[1:]),
    "ModuleList +": (_module_list, lambda c, nn, t: c + nn.ModuleList([nn.ELU()])),
    "ModuleList +=": (_module_list, lambda c, nn, t: c.__iadd__([nn.ELU()])),
    "ModuleList extend not iterable": (_module_list, lambda c, nn, t: c.extend(nn.ReLU())),
    "ModuleList append returns": (_module_list, lambda c, nn, t: c.append(nn.ELU())),
    "ModuleDict.update dict": (_module_dict, lambda c, nn, t: c.update({"c": nn.ELU(), "a": nn.GELU()})),
    "ModuleDict.update pairs": (_module_dict, lambda c, nn, t: c.update([("c", nn.ELU())])),
    "ModuleDict.update ModuleDict": (_module_dict, lambda c, nn, t: c.update(nn.ModuleDict({"z": nn.ELU()}))),
    "ModuleDict.update not iterable": (_module_dict, lambda c, nn, t: c.update(nn.ReLU())),
    "ModuleDict.update bad pair": (_module_dict, lambda c, nn, t: c.update([("c", nn.ELU(), 1)])),
    "ModuleDict.update bad element": (_module_dict, lambda c, nn, t: c.update([nn.ELU()])),
    "ModuleDict.clear": (_module_dict, lambda c, nn, t: c.clear()),
    "ModuleDict.pop": (_module_dict, lambda c, nn, t: c.pop("a")),
    "ModuleDict.keys": (_module_dict, lambda c, nn, t: list(c.keys())),
    "ModuleDict del": (_module_dict, lambda c, nn, t: c.__delitem__("b")),
    "ModuleDict missing key": (_module_dict, lambda c, nn, t: c["x"]),
    "ModuleDict contains": (_module_dict, lambda c, nn, t: ("a" in c, "x" in c)),
    "ParameterList append": (_parameter_list, lambda c, nn, t: c.append(t.full((1,), 3.0))),
    "ParameterList extend": (_parameter_list, lambda c, nn, t: c.extend([t.ones(3), "not a tensor"])),
    "ParameterList negative": (_parameter_list, lambda c, nn, t: c[-1]),
    "ParameterList setitem": (_parameter_list, lambda c, nn, t: c.__setitem__(0, t.full((2,), 5.0))),
    "ParameterList out of range": (_parameter_list, lambda c, nn, t: c[2]),
    "ParameterList slice": (_parameter_list, lambda c, nn, t: c[1:]),
    "ParameterList +=": (_parameter_list, lambda c, nn, t: c.__iadd__([t.ones(1)])),
    "ParameterDict.update": (_parameter_dict, lambda c, nn, t: c.update({"x": t.ones(2), "w": t.zeros(1)})),
    "ParameterDict.update pairs": (_parameter_dict, lambda c, nn, t: c.update([("x", t.ones(2))])),
    "ParameterDict.setdefault": (_parameter_dict, lambda c, nn, t: [c.setdefault("w", t.zeros(1)),
                                                                     c.setdefault("n", t.full((1,), 2.0))]),
    "ParameterDict.popitem": (_parameter_dict, lambda c, nn, t: c.popitem()),
    "ParameterDict.clear": (_parameter_dict, lambda c, nn, t: c.clear()),
    "ParameterDict.copy": (_parameter_dict, lambda c, nn, t: c.copy()),
    "ParameterDict.fromkeys": (_parameter_dict, lambda c, nn, t: c.fromkeys(["p", "q"], t.ones(1))),
    "ParameterDict |": (_parameter_dict, lambda c, nn, t: c | nn.ParameterDict({"z": t.ones(1)})),
    "ParameterDict |=": (_parameter_dict, lambda c, nn, t: c.__ior__({"z": t.ones(1)})),
    "ParameterDict missing key": (_parameter_dict, lambda c, nn, t: c["nope"]),
    "ParameterDict get": (_parameter_dict, lambda c, nn, t: [c.get("w"), c.get("nope", 7)]),
    "ParameterDict reversed": (_parameter_dict, lambda c, nn, t: list(reversed(c))),
    "ParameterDict del": (_parameter_dict, lambda c, nn, t: c.__delitem__("w")),
}


def _run_case(lib, name):
    make, step = CONTAINER_CASES[name]
    nn = lib.nn
    container = make(nn) if make in (_module_list, _module_dict) else make(nn, lib)
    try:
        result = _observe(step(container, nn, lib))
    except Exception as e:  # noqa: BLE001 - the type and message are compared
        result = (type(e).__name__, str(e))
    return result, _observe(container)


import pytest  # noqa: E402


@pytest.mark.parametrize("name", list(CONTAINER_CASES))
def test_container_methods_match_torch(name):
    assert _run_case(webtorch, name) == _run_case(torch, name)
