"""The flags of a backend that does not exist here (cuDNN, oneDNN, NNPACK): module attributes with
torch's defaults that scripts read and set and that change nothing; flags() sets them for a block."""
import contextlib
import sys


@contextlib.contextmanager
def temporarily(module_name, **values):
    """Within the block the module's flags take these values; they come back after it."""
    module = sys.modules[module_name]
    saved = {name: getattr(module, name) for name in values}
    for name, value in values.items():
        setattr(module, name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(module, name, value)


def set_flags(module_name, **values):
    """Sets the flags not given as None; returns the previous values in the order given, as torch."""
    module = sys.modules[module_name]
    saved = tuple(getattr(module, name) for name in values)
    for name, value in values.items():
        if value is not None:
            setattr(module, name, value)
    return saved
