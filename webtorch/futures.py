"""torch.futures: Future, a value that is set once, with callbacks; collect_all and wait_all. webtorch
runs every call to its end before returning, so a Future here is set by whoever holds it (or already is)."""
__all__ = ["Future", "collect_all", "wait_all"]


class Future:
    def __init__(self, *, devices=None):
        self._done, self._value, self._error, self._callbacks = False, None, None, []

    def done(self):
        return self._done

    def set_result(self, result):
        self._finish(result, None)

    def set_exception(self, result):
        if not isinstance(result, Exception):
            raise AssertionError(f"{result} is of type {type(result)}, not an Exception.")
        self._finish(None, result)

    def _finish(self, value, error):
        if self._done:
            raise RuntimeError("Future can only be marked completed once.")
        self._done, self._value, self._error = True, value, error
        callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback(self)

    def wait(self):
        if not self._done:
            raise RuntimeError("webtorch: waiting on a Future nobody has set would wait forever (one thread runs "
                               "everything here)")
        return self.value()

    def value(self):
        if self._error is not None:
            raise self._error
        return self._value

    def then(self, callback):
        """A Future of callback(self), set when this one is."""
        out = Future()

        def run(fut):
            try:
                out.set_result(callback(fut))
            except Exception as e:  # noqa: BLE001 - carried by the chained Future
                out.set_exception(e)
        self.add_done_callback(run)
        return out

    def add_done_callback(self, callback):
        if self._done:
            callback(self)
        else:
            self._callbacks.append(callback)

    def __class_getitem__(cls, item):  # Future[int] in annotations
        return cls


def collect_all(futures):
    """A Future of the list of futures, set when all of them are."""
    out, pending = Future(), list(futures)
    remaining = [len(pending)]

    def one_done(_):
        remaining[0] -= 1
        if remaining[0] == 0:
            out.set_result(pending)
    if not pending:
        out.set_result([])
    for fut in pending:
        fut.add_done_callback(one_done)
    return out


def wait_all(futures):
    return [fut.wait() for fut in futures]
