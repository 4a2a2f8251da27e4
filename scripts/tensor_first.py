"""Regenerate webtorch/_tensor_first.py: the functions of torch 2.13 (torch, torch.nn.functional, torch.linalg,
torch.special, torch.fft) whose first argument must be a Tensor, read from torch's own behaviour.

  python scripts/tensor_first.py            print the module
  python scripts/tensor_first.py --write    write it

The rule, per public function (of the torch namespace: its native ops, torch._C._VariableFunctions, and the
functions torch.overrides can override; the process-wide setters are left alone): it is called with 1, 2,
then 3 floats until torch raises a TypeError that says the first argument must be a Tensor, either in so
many words ("abs(): argument 'input' (position 1) must be Tensor, not float") or as a list of overloads
that all take a Tensor first ("add() received an invalid combination of arguments ... (Tensor input,
Tensor other, ...)"); a call that computes or raises another type ends the search, the function unlisted
(torch.nn.functional.softmax: AttributeError; pow, which has (Number self, Tensor exponent)). A found
function is listed when None in the same call raises TypeError too, when the overloads of every number
of arguments take a Tensor first (torch.normal takes a Tensor first with one argument, but has (float
mean, Tensor std) too: not listed), and when no call of a float followed by floats or Tensors computes
(torch.add(1.5) is a TypeError, torch.add(1.5, t) computes: not listed).

tests/test_error_types.py fails while the module differs from what this produces.
"""
import inspect
import os
import re
import sys
import warnings

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODULE = os.path.join(ROOT, "webtorch", "_tensor_first.py")
NAMESPACES = {"torch": torch, "torch.nn.functional": torch.nn.functional, "torch.linalg": torch.linalg,
              "torch.special": torch.special, "torch.fft": torch.fft}
_SAID = re.compile(r"(\w+)\(\): argument '(\w+)' \(position 1\) must be Tensor, not float$")
_OVERLOADS = re.compile(r"(\w+)\(\) received an invalid combination of arguments - got \(float(?:, float)*\), but "
                        r"expected")
_FIRST_PARAMETER = re.compile(r"(?:^ \* |but expected )\(([^,)]*)", re.M)


def _raised(fn, args):
    """The exception fn(*args) raises; None when it computes."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn(*args)
    except Exception as e:  # noqa: BLE001 - the type is what is read
        return e
    return None


def _type_error(fn, args):
    """The message of the TypeError fn(*args) raises; None when it computes or raises another type."""
    raised = _raised(fn, args)
    return str(raised) if isinstance(raised, TypeError) else None


def _tensor_first(message):
    """(name in torch's message, parameter name) when message says the first argument must be a Tensor."""
    said = _SAID.match(message)
    if said:
        return said.group(1), said.group(2)
    overloads = _OVERLOADS.match(message)
    if overloads:
        first = _first_parameter(message)
        if first:
            return overloads.group(1), first
    return None


def _first_parameter(message):
    """The first parameter's name when every overload listed in message takes a Tensor first; else None."""
    firsts = [p.split() for p in _FIRST_PARAMETER.findall(message)]
    if firsts and all(len(p) == 2 and p[0] == "Tensor" for p in firsts):
        return firsts[0][1]
    return None


def _rule(fn):
    for n in (1, 2, 3):
        message = _type_error(fn, (1.5,) * n)
        if message is None:
            return None
        found = _tensor_first(message)
        if found:
            break
    else:
        return None
    if _type_error(fn, (None,) * n) is None:
        return None
    # the message names the overloads of n arguments only: too many arguments lists them all (torch.normal
    # takes a Tensor first with one or two arguments, but also (float mean, Tensor std))
    every = _type_error(fn, (object(),) * 12) or ""
    if _OVERLOADS.match(every.replace("object", "float")) and not _first_parameter(every):
        return None
    # and the arithmetic ops take a number for their Tensor input once other is given: torch.add(1.5, t)
    t = torch.ones(2)
    if any(_raised(fn, args) is None for args in ((1.5, 1.5), (1.5, t), (1.5, t, t))):
        return None
    return found


def _candidates():
    natives = {getattr(torch._C._VariableFunctions, n) for n in dir(torch._C._VariableFunctions)}
    overridable = {f for fns in torch.overrides.get_overridable_functions().values() for f in fns}
    for prefix, module in NAMESPACES.items():
        for name in sorted(dir(module)):
            fn = getattr(module, name)
            if name.startswith("_") or not callable(fn) or inspect.isclass(fn):
                continue
            if module is torch and fn not in natives and fn not in overridable:
                continue
            yield f"{prefix}.{name}", fn


def table():
    with torch.random.fork_rng(devices=[]):  # (a probe that computes may draw: the tests' RNG stays as it was)
        return {path: rule for path, fn in _candidates() if (rule := _rule(fn))}


def text():
    rows = "".join(f"    {path!r}: {rule!r},\n" for path, rule in table().items())
    return (f'"""Generated by scripts/tensor_first.py from torch {torch.__version__.split("+")[0]}: do not edit (rerun it; '
            'tests/test_error_types.py\nchecks that this is current).\n\n'
            "The functions whose first argument must be a Tensor, where torch raises TypeError for a float or None:\n"
            "{torch path: (the function's name in torch's message, the parameter's name)}. _torch_function's\n"
            'wrappers check it."""\n'
            f"FIRST = {{\n{rows}}}\n")


def main(argv):
    new = text()
    if "--write" not in argv:
        print(new, end="")
        return 0
    with open(MODULE, "w", encoding="utf-8") as f:
        f.write(new)
    print(f"{MODULE}: {new.count(chr(10)) - 8} functions")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
