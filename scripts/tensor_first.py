"""Regenerate webtorch/_tensor_first.py: the functions of torch 2.13 (torch, torch.nn.functional, torch.linalg,
torch.special, torch.fft) whose first argument must be a Tensor, and of those the ones whose second must be
one too, read from torch's own behaviour.

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
(torch.add(1.5) is a TypeError, torch.add(1.5, t) computes: not listed). The second argument: the same
rule with a Tensor before the floats (torch.mm(t, 1.5)), where None must be refused by name too (an
optional Tensor, torch.batch_norm's weight, says "must be Tensor" for a float as well).

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
_SAID = re.compile(r"(\w+)\(\): argument '(\w+)' \(position (\d)\) must be Tensor, not float$")
_OVERLOADS = re.compile(r"(\w+)\(\) received an invalid combination of arguments - got \((?:Tensor, )?float(?:, float)*\), "
                        r"but expected")
_OVERLOAD = re.compile(r"(?:^ \* |but expected )\(", re.M)
_LEADING = {1: re.compile(r"(?:^ \* |but expected )\(([^,)]*)", re.M),
            2: re.compile(r"(?:^ \* |but expected )\([^,)]*, ([^,)]*)", re.M)}


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


def _parameter(message, position):
    """The name of the parameter at position (1 or 2) when every overload listed in message takes a Tensor
    there; else None."""
    params = [p.split() for p in _LEADING[position].findall(message)]
    if params and len(params) == len(_OVERLOAD.findall(message)) and all(len(p) == 2 and p[0] == "Tensor"
                                                                          for p in params):
        return params[0][1]
    return None


def _tensor_at(message, position):
    """(name in torch's message, parameter name) when message says the argument at position must be a Tensor."""
    said = _SAID.match(message)
    if said:
        return (said.group(1), said.group(2)) if said.group(3) == str(position) else None
    overloads = _OVERLOADS.match(message)
    if overloads and _parameter(message, position):
        return overloads.group(1), _parameter(message, position)
    return None


def _rule(fn, position):
    """(name, parameter) when fn takes only a Tensor at position (1 or 2, a Tensor before it); else None."""
    t = torch.ones(2, 2)
    lead = (t,) * (position - 1)
    for n in range(position, 4):
        message = _type_error(fn, lead + (1.5,) * (n + 1 - position))
        if message is None:
            return None
        found = _tensor_at(message, position)
        if found:
            break
    else:
        return None
    refused = _type_error(fn, lead + (None,) * (n + 1 - position))
    if refused is None:
        return None
    # an optional Tensor (torch.batch_norm's weight) says "must be Tensor" for a float too: a second argument
    # counts when None is refused by name there (a first one is where torch raises TypeError at all)
    if position == 2 and not _tensor_at(refused.replace("NoneType", "float"), 2):
        return None
    # the message names the overloads of n arguments only: too many arguments lists them all (torch.normal
    # takes a Tensor first with one or two arguments, but also (float mean, Tensor std))
    every = _type_error(fn, (object(),) * 12) or ""
    if _OVERLOADS.match(every.replace("object", "float")) and not _parameter(every, position):
        return None
    # and the arithmetic ops take a number for their Tensor input once other is given: torch.add(1.5, t)
    if any(_raised(fn, lead + tail) is None for tail in ((1.5, 1.5), (1.5, t), (1.5, t, t))):
        return None
    return found


def _row(fn):
    """(name, first parameter) or (name, first parameter, second parameter); None when the first argument
    may be something else than a Tensor."""
    first = _rule(fn, 1)
    if first is None:
        return None
    second = _rule(fn, 2)
    return first if second is None else (*first, second[1])


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
        return {path: rule for path, fn in _candidates() if (rule := _row(fn))}


def text():
    rows = "".join(f"    {path!r}: {rule!r},\n" for path, rule in table().items())
    return (f'"""Generated by scripts/tensor_first.py from torch {torch.__version__.split("+")[0]}: do not edit (rerun it; '
            'tests/test_error_types.py\nchecks that this is current).\n\n'
            "The functions whose first argument must be a Tensor, where torch raises TypeError for a float or None:\n"
            "{torch path: (the function's name in torch's message, the first parameter's name[, the second's, where\n"
            'it must be a Tensor too])}. _torch_function\'s wrappers check it."""\n'
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
