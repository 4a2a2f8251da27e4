"""torch.fx.node: Node and Target (webtorch/fx/__init__.py: nothing traces), map_arg refused."""
from . import Node, map_arg

__all__ = ["Node", "Target", "map_arg"]

Target = object  # torch's alias Union[Callable, str], for annotations
