"""torch.utils.checkpoint. webtorch keeps the activations instead of recomputing them: the function
runs once, normally, so values and gradients are torch's; only the memory saving is missing."""


def checkpoint(function, *args, use_reentrant=None, context_fn=None, determinism_check="default", debug=False,
               preserve_rng_state=True, **kwargs):
    return function(*args, **kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    children = list(functions.children()) if hasattr(functions, "children") else list(functions)
    for f in children:
        input = f(input)
    return input


# torch's helpers of its reentrant checkpoint, which code imports with it
SAC_IGNORED_OPS = set()  # ops selective activation checkpointing never saves: none here, nothing is recomputed


def detach_variable(inputs):
    if not isinstance(inputs, tuple):
        raise RuntimeError(f"Only tuple of tensors is supported. Got Unsupported input type: {type(inputs).__name__}")
    from .. import _ops
    return tuple(x.detach().requires_grad_(x.requires_grad) if isinstance(x, _ops.Tensor) else x for x in inputs)


def check_backward_validity(inputs):
    from .. import _ops
    if not any(x.requires_grad for x in inputs if isinstance(x, _ops.Tensor)):
        import warnings
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)


class CheckpointFunction:
    """torch's reentrant checkpoint as an autograd Function: here apply(run_function, preserve_rng_state,
    *args) runs the function once, keeping its activations (see checkpoint)."""

    @staticmethod
    def apply(run_function, preserve_rng_state, *args):
        return run_function(*args)


def get_device_states(*args):
    """(device ids, RNG states) of the accelerator devices the tensors in args are on: none here, as on
    torch's CPU build: webtorch's one generator serves every device (torch.get_rng_state holds it)."""
    return [], []


def set_device_states(devices, states, *, device_type=None):
    """Restores what get_device_states returned: nothing here."""
    if len(devices) != len(states):
        raise ValueError(f"set_device_states: {len(devices)} devices and {len(states)} states")
