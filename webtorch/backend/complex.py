"""Complex storages: a complex64 (complex128) tensor's elements are (real, imaginary) pairs, interleaved in
one storage of float32 (float64) on its device, as torch lays them out. The complex tensor is an ordinary
Tensor over this wrapper, its shape, strides and offset counted in complex elements; view_as_real is the
same memory read as the real storage with strides doubled and a last dim of 2 (webtorch/_complex.py).

Views (transpose, slicing, reshape of a viewable layout, ...) need only the layout and work unchanged. A
kernel that has no complex form would read the wrapper as a real storage: every attribute a device
backend reads (its data, buffer, ...) raises NotImplementedError instead, so an op without a complex form
fails with a clear error rather than computing on the wrong numbers. The ops with complex forms work on
the real pairs (webtorch/_complex.py)."""
import weakref

from .. import _dtypes as dt

# one wrapper per real storage while it lives: views of one complex tensor share their `_storage`
_WRAPPERS = weakref.WeakValueDictionary()


class Storage:
    __slots__ = ("real", "__weakref__")

    def __new__(cls, real):
        found = _WRAPPERS.get(id(real))
        if found is not None and found.real is real:
            return found
        self = object.__new__(cls)
        self.real = real
        _WRAPPERS[id(real)] = self
        return self

    @property
    def dtype(self):
        return dt.COMPLEX_OF[self.real.dtype]

    @property
    def device_type(self):
        return self.real.device_type

    @property
    def numel(self):
        return self.real.numel // 2

    @property
    def version(self):  # one counter with the real storage: writes through view_as_real count too
        return self.real.version

    @version.setter
    def version(self, value):
        self.real.version = value

    def __getattr__(self, name):
        raise no_complex_form(self.dtype)


class NoComplexForm(NotImplementedError, AttributeError):
    """A NotImplementedError, and an AttributeError for the code that asks a storage whether it has an
    attribute (getattr with a default, hasattr): a complex storage has none of a real one's."""


def no_complex_form(dtype):
    """The error of a real kernel reached by a complex tensor (its storage read, or its result allocated)."""
    return NoComplexForm(f"webtorch: this operation has no complex form yet (a {dtype.name} tensor reached a "
                               "real kernel); see docs/complex.md for the ops that take complex tensors")


def empty(backend, dtype, numel):
    """A complex storage of numel elements on backend (cpu, gpu or meta)."""
    return Storage(backend.empty(_real_dtype(dtype), 2 * numel))


def from_host(backend, dtype, values):
    """values: the interleaved (real, imaginary) pairs as an array.array of the real dtype's typecode."""
    return Storage(backend.from_host(_real_dtype(dtype), values))


def _real_dtype(dtype):
    real = dt.REAL_OF[dtype]
    if real is dt.float16:
        raise NotImplementedError("webtorch holds no complex32 (chalf) tensors; use complex64")
    return real
