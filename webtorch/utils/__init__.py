from . import _pytree, checkpoint, collect_env, data, dlpack, hooks, model_zoo  # noqa: F401

__all__ = ["swap_tensors"]


def swap_tensors(t1, t2):
    """t1 takes t2's contents (storage, shape, dtype, autograd state, attributes, class) and t2 takes t1's;
    both keep their identity, so every reference sees the other tensor's data."""
    import copyreg
    import weakref
    for name, t in (("t1", t1), ("t2", t2)):
        if weakref.getweakrefs(t):
            raise RuntimeError(f"Cannot swap {name} because it has weakref associated with it")
    if set(copyreg._slotnames(type(t1))) != set(copyreg._slotnames(type(t2))):
        raise RuntimeError("Cannot swap t1 and t2 if they have different slots")
    t1.__class__, t2.__class__ = t2.__class__, t1.__class__
    for name in copyreg._slotnames(type(t1)):
        if name in ("__dict__", "__weakref__"):
            continue
        a, b = getattr(t1, name, _UNSET), getattr(t2, name, _UNSET)
        for t, value in ((t1, b), (t2, a)):
            if value is _UNSET:
                delattr(t, name)
            else:
                setattr(t, name, value)
    d1, d2 = dict(t1.__dict__), dict(t2.__dict__)
    t1.__dict__.clear()
    t1.__dict__.update(d2)
    t2.__dict__.clear()
    t2.__dict__.update(d1)


_UNSET = object()
