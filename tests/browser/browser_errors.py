"""Exception type shared by tests/browser/conftest.py and the browser tests
(a separate module so tests need not import conftest)."""


class PyodideError(AssertionError):
    """Python (or JS) error raised by code run in the browser; the message has
    the Python traceback, Python stderr and browser console errors."""
