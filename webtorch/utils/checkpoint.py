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
