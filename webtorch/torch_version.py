"""torch.torch_version.TorchVersion: a version string that compares as a version
(torch.__version__ >= "2.1", >= (2, 1), against packaging's Version)."""
import re

__all__ = ["TorchVersion"]


def _release(value):
    """The release numbers of a version: "2.13.0+cpu" -> (2, 13, 0); tuples and Versions as given."""
    if isinstance(value, tuple):
        return tuple(int(v) for v in value)
    release = getattr(value, "release", None)  # packaging.version.Version
    if release is not None:
        return tuple(release)
    match = re.match(r"\s*v?(\d+(?:\.\d+)*)", str(value))
    if match is None:
        raise ValueError(f"Invalid version: {value!r}")
    return tuple(int(v) for v in match.group(1).split("."))


def _padded(a, b):
    n = max(len(a), len(b))
    return a + (0,) * (n - len(a)), b + (0,) * (n - len(b))


class TorchVersion(str):
    def _cmp(self, other, op):
        try:
            mine, theirs = _padded(_release(self), _release(other))
        except (TypeError, ValueError):
            return NotImplemented
        return op(mine, theirs)

    def __lt__(self, other):
        return self._cmp(other, tuple.__lt__)

    def __le__(self, other):
        return self._cmp(other, tuple.__le__)

    def __gt__(self, other):
        return self._cmp(other, tuple.__gt__)

    def __ge__(self, other):
        return self._cmp(other, tuple.__ge__)

    def __eq__(self, other):
        if isinstance(other, str) and str.__eq__(self, other):
            return True
        result = self._cmp(other, tuple.__eq__)
        return False if result is NotImplemented else result

    __hash__ = str.__hash__
