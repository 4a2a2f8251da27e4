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
