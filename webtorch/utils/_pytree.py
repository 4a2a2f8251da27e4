"""torch.utils._pytree: flatten nested containers (list, tuple, namedtuple, dict, OrderedDict,
defaultdict, and registered classes) into leaves and a TreeSpec that rebuilds them."""
import collections
import dataclasses

__all__ = ["MappingKey", "SequenceKey", "GetAttrKey", "TreeSpec", "LeafSpec", "register_pytree_node", "tree_flatten", "tree_unflatten", "tree_leaves",
           "tree_structure", "tree_map", "tree_map_only", "tree_all", "tree_any", "tree_iter"]

# type -> (flatten: node -> (children, context), unflatten: (children, context) -> node)
SUPPORTED_NODES = {}


def register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None, to_dumpable_context=None,
                         from_dumpable_context=None, flatten_with_keys_fn=None):
    if cls in SUPPORTED_NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    SUPPORTED_NODES[cls] = (flatten_fn, unflatten_fn)


_register_pytree_node = register_pytree_node


def _dict_flatten(d):
    return list(d.values()), list(d.keys())


@dataclasses.dataclass(frozen=True)
class MappingKey:
    key: object

    def __str__(self):
        return f"[{self.key!r}]"


@dataclasses.dataclass(frozen=True)
class SequenceKey:
    idx: int

    def __str__(self):
        return f"[{self.idx!r}]"


@dataclasses.dataclass(frozen=True)
class GetAttrKey:
    name: str

    def __str__(self):
        return f".{self.name}"


def _dict_flatten_with_keys(d):
    values, keys = _dict_flatten(d)
    return [(MappingKey(k), v) for k, v in zip(keys, values)], keys


register_pytree_node(tuple, lambda t: (list(t), None), lambda values, _: tuple(values))
register_pytree_node(list, lambda t: (list(t), None), lambda values, _: list(values))
register_pytree_node(dict, _dict_flatten, lambda values, keys: dict(zip(keys, values)))
register_pytree_node(collections.OrderedDict, _dict_flatten,
                     lambda values, keys: collections.OrderedDict(zip(keys, values)))
register_pytree_node(collections.defaultdict, lambda d: (list(d.values()), (d.default_factory, list(d.keys()))),
                     lambda values, ctx: collections.defaultdict(ctx[0], zip(ctx[1], values)))


def _node_type(tree):
    kind = type(tree)
    if kind in SUPPORTED_NODES:
        return kind
    if isinstance(tree, tuple) and hasattr(kind, "_fields"):  # a namedtuple
        return "namedtuple"
    return None


def _flatten_node(tree, kind):
    if kind == "namedtuple":
        return list(tree), type(tree)
    return SUPPORTED_NODES[kind][0](tree)


def _unflatten_node(kind, children, context):
    if kind == "namedtuple":
        return context(*children)
    return SUPPORTED_NODES[kind][1](children, context)


@dataclasses.dataclass
class TreeSpec:
    type: object
    context: object
    children_specs: list

    @property
    def num_leaves(self):
        return sum(child.num_leaves for child in self.children_specs)

    @property
    def num_children(self):
        return len(self.children_specs)

    def is_leaf(self):
        return self.type is None

    def unflatten(self, leaves):
        return tree_unflatten(leaves, self)


class LeafSpec(TreeSpec):
    def __init__(self):
        super().__init__(None, None, [])

    @property
    def num_leaves(self):
        return 1


def tree_flatten(tree, is_leaf=None):
    leaves = []

    def flatten(node):
        kind = None if is_leaf is not None and is_leaf(node) else _node_type(node)
        if kind is None:
            leaves.append(node)
            return LeafSpec()
        children, context = _flatten_node(node, kind)
        return TreeSpec(kind, context, [flatten(child) for child in children])
    return leaves, flatten(tree)


def tree_unflatten(leaves, treespec):
    leaves = list(leaves)
    if len(leaves) != treespec.num_leaves:
        raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the spec refers to a "
                         f"pytree that holds {treespec.num_leaves} items ({treespec}).")
    position = iter(leaves)

    def build(spec):
        if spec.is_leaf():
            return next(position)
        return _unflatten_node(spec.type, [build(child) for child in spec.children_specs], spec.context)
    return build(treespec)


def tree_leaves(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[0]


def tree_iter(tree, is_leaf=None):
    return iter(tree_leaves(tree, is_leaf))


def tree_structure(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[1]


def tree_map(func, tree, *rests, is_leaf=None):
    leaves, spec = tree_flatten(tree, is_leaf)
    others = [tree_flatten(rest, is_leaf)[0] for rest in rests]
    return tree_unflatten([func(*values) for values in zip(leaves, *others)], spec)


def _matches(type_or_types, value):
    return isinstance(value, type_or_types)


def tree_map_only(type_or_types, func, tree, is_leaf=None):
    return tree_map(lambda x: func(x) if _matches(type_or_types, x) else x, tree, is_leaf=is_leaf)


def tree_all(pred, tree, is_leaf=None):
    return all(map(pred, tree_leaves(tree, is_leaf)))


def tree_any(pred, tree, is_leaf=None):
    return any(map(pred, tree_leaves(tree, is_leaf)))
