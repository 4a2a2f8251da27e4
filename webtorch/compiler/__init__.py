"""torch.compiler: webtorch.compile is webtorch's own recorder (no Dynamo), so the questions code asks
while tracing answer "not tracing", and the marks for Dynamo return what they are given."""

__all__ = ["allow_in_graph", "assume_constant_result", "disable", "is_compiling", "is_dynamo_compiling",
           "is_exporting", "reset", "set_stance"]


def is_compiling():
    return False


is_dynamo_compiling = is_exporting = is_compiling


def disable(fn=None, recursive=True, *, reason=None):
    if fn is None:
        return lambda f: f
    return fn


def allow_in_graph(fn):
    return fn


def assume_constant_result(fn):
    return fn


def reset():
    pass


def set_stance(stance="default", *, skip_guard_eval_unsafe=False, force_backend=None):
    import contextlib
    return contextlib.nullcontext()


def cudagraph_mark_step_begin():
    """torch marks a new iteration for CUDA graph trees; webtorch's replays need no mark."""
