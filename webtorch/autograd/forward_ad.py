"""torch.autograd.forward_ad: webtorch differentiates in reverse mode only. No tensor carries a tangent,
so unpack_dual gives (tensor, None) as torch does for a plain tensor, and dual levels can be entered
and left; making a dual tensor raises NotImplementedError (autograd.functional.jvp computes J v by the
double-backward trick instead)."""
import collections

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual", "dual_level"]

UnpackedDualTensor = collections.namedtuple("UnpackedDualTensor", ["primal", "tangent"])
_levels = []


def enter_dual_level():
    if _levels:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _levels.append(0)
    return 0


def exit_dual_level(*, level=None):
    level = 0 if level is None else level
    if _levels != [level]:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created. This is "
                           "not supported.")
    _levels.pop()


class dual_level:
    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()


def make_dual(tensor, tangent, *, level=None):
    raise NotImplementedError("webtorch has no forward-mode AD (torch.autograd.forward_ad.make_dual); "
                              "torch.autograd.functional.jvp gives J v by reverse mode")


def unpack_dual(tensor, *, level=None):
    return UnpackedDualTensor(tensor, None)
