"""Stand-ins for the libraries beside torch that the programs of tests/programs/ import (torchvision's
datasets, transforms, image saving and model-registry helpers; matplotlib, PIL, tensorboard), for
`program_runner.load(stubs=...)`. Their data are synthetic and depend only on the index, so both
libraries see the same images; nothing is read, written or downloaded."""
import dataclasses
import enum
import random
import types


def _module(name, **attributes):
    module = types.ModuleType(name)
    module.__dict__.update(attributes)
    module.__path__ = []  # a package, so that its submodules import
    return module


def _ignore(*args, **kwargs):
    return None


def _drawing_call(name):
    """pyplot's attributes: every drawing call is ignored; dunders (__file__, ...) stay missing, as
    inspect.getmodule reads them from every module in sys.modules (torch does, importing torch.distributed)."""
    if name.startswith("__"):
        raise AttributeError(name)
    return _ignore


def image(index, shape, seed=0):
    """A deterministic 8-bit image (C, H, W) as nested lists: what a dataset would decode."""
    rng = random.Random(index * 7919 + seed)
    channels, height, width = shape
    return [[[rng.randrange(256) for _ in range(width)] for _ in range(height)] for _ in range(channels)]


def make_divisible(v, divisor, min_value=None):
    """torchvision.models._utils._make_divisible: v rounded to a multiple of divisor, not below 90% of v."""
    min_value = divisor if min_value is None else min_value
    rounded = max(min_value, int(v + divisor / 2) // divisor * divisor)
    return rounded + divisor if rounded < 0.9 * v else rounded


def torchvision(T):
    """torchvision's datasets (MNIST, FakeData), transforms and utils for the library T, and the
    helpers torchvision/models/resnet.py imports (its pretrained-weight tables, unused here)."""

    class SyntheticImages:
        def __init__(self, length, shape, classes, transform, seed):
            self.length, self.shape, self.classes, self.transform, self.seed = length, shape, classes, transform, seed

        def __len__(self):
            return self.length

        def __getitem__(self, index):
            if not 0 <= index < self.length:
                raise IndexError(index)
            picture = image(index, self.shape, self.seed)
            target = random.Random(index + self.seed).randrange(self.classes)
            return (self.transform(picture) if self.transform else picture), target

    def MNIST(root, train=True, transform=None, target_transform=None, download=False):
        return SyntheticImages(8 if train else 4, (1, 28, 28), 10, transform, 0 if train else 1)

    def FakeData(size=1000, image_size=(3, 224, 224), num_classes=10, transform=None, target_transform=None,
                 random_offset=0):
        return SyntheticImages(size, image_size, num_classes, transform, random_offset + 2)

    class Compose:
        def __init__(self, transforms):
            self.transforms = transforms

        def __call__(self, picture):
            for transform in self.transforms:
                picture = transform(picture)
            return picture

    class ToTensor:
        def __call__(self, picture):
            return T.tensor(picture, dtype=T.float32) / 255

    class Normalize:
        def __init__(self, mean, std):
            self.mean, self.std = mean, std

        def __call__(self, tensor):
            return (tensor - T.tensor(self.mean).view(-1, 1, 1)) / T.tensor(self.std).view(-1, 1, 1)

    def save_image(tensor, fp, **kwargs):
        tensor.tolist()  # what is saved must be computable

    @dataclasses.dataclass
    class Weights:
        url: str
        transforms: object
        meta: dict

    class WeightsEnum(enum.Enum):
        @classmethod
        def verify(cls, obj):
            if obj is not None and not isinstance(obj, cls):
                raise TypeError(f"Invalid Weight class provided; expected {cls.__name__} but received {obj}.")
            return obj

    def register_model(name=None):
        return lambda builder: builder

    def handle_legacy_interface(**weights):
        return lambda builder: builder

    def _ovewrite_named_param(kwargs, param, new_value):
        if param in kwargs and kwargs[param] != new_value:
            raise ValueError(f"The parameter '{param}' expected value {new_value} but got {kwargs[param]} instead.")
        kwargs[param] = new_value

    transforms = _module("torchvision.transforms", Compose=Compose, ToTensor=ToTensor, Normalize=Normalize,
                         Resize=lambda size: (lambda picture: picture), CenterCrop=lambda size: (lambda picture: picture),
                         Lambda=lambda function: function)
    stubs = {
        "torchvision.datasets": _module("torchvision.datasets", MNIST=MNIST, FakeData=FakeData),
        "torchvision.transforms": transforms,
        "torchvision.transforms._presets": _module("torchvision.transforms._presets", ImageClassification=object),
        "torchvision.utils": _module("torchvision.utils", save_image=save_image, _log_api_usage_once=_ignore),
        "torchvision.models": _module("torchvision.models"),
        "torchvision.models._api": _module("torchvision.models._api", register_model=register_model,
                                           Weights=Weights, WeightsEnum=WeightsEnum),
        "torchvision.models._meta": _module("torchvision.models._meta",
                                            _IMAGENET_CATEGORIES=[f"class {i}" for i in range(1000)]),
        "torchvision.models._utils": _module("torchvision.models._utils", _ovewrite_named_param=_ovewrite_named_param,
                                             handle_legacy_interface=handle_legacy_interface),
    }
    stubs["torchvision"] = _module("torchvision", **{name.split(".")[1]: stub for name, stub in stubs.items()
                                                     if name.count(".") == 1})
    return stubs


def others(T):
    """matplotlib (drawing ignored), PIL (only imported) and torch.utils.tensorboard (a SummaryWriter
    that drops what it is given: torch's needs the tensorboard package, which is not installed)."""
    pyplot = _module("matplotlib.pyplot")
    pyplot.__getattr__ = _drawing_call

    class SummaryWriter:
        def __init__(self, *args, **kwargs):
            pass

        add_scalar = flush = close = _ignore

    return {"matplotlib": _module("matplotlib", use=_ignore, pyplot=pyplot), "matplotlib.pyplot": pyplot,
            "PIL": _module("PIL", Image=_module("PIL.Image")),
            f"{T.__name__}.utils.tensorboard": _module(f"{T.__name__}.utils.tensorboard", SummaryWriter=SummaryWriter)}
