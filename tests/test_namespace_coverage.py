"""Every public name of torch 2.13's namespaces (torch, torch.Tensor, torch.nn, torch.nn.functional,
torch.linalg, torch.fft, torch.special, torch.nn.init, torch.optim, torch.utils.data; which names count
as public: tests/namespace_walk.py) is implemented in webtorch under the same path or refused by
webtorch/_refusals.py, whose stand-ins raise NotImplementedError naming the gap. The table holds no
stale entry (a name webtorch now implements) and the coverage table of docs/compatibility.md is the generated one."""
import os
import sys

import pytest

import webtorch
from webtorch import _refusals

import namespace_walk

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts"))
import coverage  # noqa: E402

ROWS = namespace_walk.walk()
PUBLIC = {path: is_callable for path, is_callable, _ in ROWS}
ENTRIES = list(_refusals.entries())


def test_every_public_name_is_implemented_or_refused():
    missing = [path for path, _, status in ROWS if status == "missing"]
    assert not missing, (f"{len(missing)} public torch names neither implemented nor refused in "
                         f"webtorch/_refusals.py: {missing}")


def test_refusal_table_lists_only_public_unimplemented_names_once():
    paths = [path for path, _, _ in ENTRIES]
    assert len(paths) == len(set(paths)), sorted({p for p in paths if paths.count(p) > 1})
    unknown = [p for p in paths if p not in PUBLIC and namespace_walk.torch_kind(p) is None]
    assert not unknown, f"not torch names (see tests/namespace_walk.py): {unknown}"
    stale = [p for p in paths if namespace_walk.status(p) == "implemented"]
    assert not stale, f"implemented now: run python scripts/coverage.py --prune (and --write): {stale}"
    wrong_kind = [p for p, _, is_callable in ENTRIES
                  if PUBLIC.get(p, namespace_walk.torch_kind(p)) != is_callable]
    assert not wrong_kind, f"torch's object is of the other kind (CALLABLES vs VALUES): {wrong_kind}"


def _target(path):
    prefix, _, name = path.rpartition(".")
    owner = webtorch.zeros(2) if prefix == "Tensor" else namespace_walk.webtorch_object(prefix)
    return owner, name


@pytest.mark.parametrize("path,reason", [(p, r) for p, r, c in ENTRIES if c])
def test_refused_callable_exists_and_raises_naming_the_gap(path, reason):
    owner, name = _target(path)
    assert hasattr(owner, name)  # imports of the name keep working
    with pytest.raises(NotImplementedError) as info:
        getattr(owner, name)()
    assert str(info.value) == f"webtorch has no torch.{path} ({reason})"


@pytest.mark.parametrize("path,reason", [(p, r) for p, r, c in ENTRIES if not c])
def test_refused_value_reads_as_absent_and_names_the_gap(path, reason):
    owner, name = _target(path)
    assert not hasattr(owner, name)  # feature probes see the truth: absent
    assert getattr(owner, name, "default") == "default"
    with pytest.raises(NotImplementedError, match=f"webtorch has no torch.{path} "):
        getattr(owner, name)


@pytest.mark.parametrize("prefix,reason", sorted(_refusals.NAMESPACES.items()))
def test_refused_namespace_names_every_missing_public_name(prefix, reason):
    import importlib
    import torch
    module, ours = importlib.import_module("torch." + prefix), namespace_walk.webtorch_object(prefix)
    absent = [n for n in dir(module) if not n.startswith("_") and n not in vars(ours)]
    assert absent
    for name in absent:
        assert not hasattr(ours, name)
        with pytest.raises(NotImplementedError, match=f"webtorch has no torch.{prefix}.{name} "):
            getattr(ours, name)
    with pytest.raises(AttributeError) as info:
        getattr(ours, "_private_name")
    assert not isinstance(info.value, NotImplementedError)
    assert torch  # the walk compares with torch's own module


def test_refused_classes_are_classes_of_their_kind():
    assert issubclass(webtorch.nn.CrossMapLRN2d, webtorch.nn.Module)
    assert not isinstance(webtorch.nn.Linear(2, 2), webtorch.nn.CrossMapLRN2d)
    assert issubclass(webtorch.optim.Rprop, webtorch.optim.Optimizer)

    class Sub(webtorch.nn.CrossMapLRN2d):  # a subclass defined at import time is fine; building one is not
        pass
    with pytest.raises(NotImplementedError, match="torch.nn.CrossMapLRN2d"):
        Sub(3)
    assert namespace_walk.status("nn.Linear") == "implemented"


def test_refused_module_values_keep_the_modules_own_lookups():
    from webtorch.nn import functional  # noqa: F401  (a submodule still imports through the package)
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        webtorch.no_such_name  # noqa: B018
    assert not isinstance(AttributeError("x"), NotImplementedError)


def test_docs_coverage_table_is_generated():
    page = open(coverage.PAGE, encoding="utf-8").read()
    assert coverage.page_table(page) == coverage.table(), "run: python scripts/coverage.py --write"
