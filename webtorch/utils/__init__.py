from . import _pytree, checkpoint, data, model_zoo  # noqa: F401
