"""Image classifiers under torch and webtorch-as-torch, the same weights: torchvision's models
(ctx.args "tv:<name>") and timm's create_model ("timm:<name>": timm's own test_* configurations, each
architecture family at ~0.1-0.4 M parameters), at 32x32: eval logits and the cross-entropy
gradient of the first parameter (batch 2), and a training-mode loss (batch norm on the statistics of
4 images: of 2 at 1x1 it is ill-conditioned, torch's own float32 then differs from its float64 by up
to 2e-4). "v2": torchvision's tv_tensors through transforms.v2 (transforms_v2 below)."""
import torch

SIZE = 32


def _model(spec):
    library, _, name = spec.partition(":")
    if library == "tv":
        import torchvision
        if name == "vit":
            model = torchvision.models.VisionTransformer(image_size=SIZE, patch_size=8, num_layers=2, num_heads=2,
                                                         hidden_dim=32, mlp_dim=64, num_classes=10)
            torch.nn.init.normal_(model.heads.head.weight, std=0.5)  # torchvision starts the head at 0
            return model
        return getattr(torchvision.models, name)(num_classes=10)
    import timm
    kwargs = dict(img_size=SIZE) if "vit" in name else {}
    return timm.create_model(name, pretrained=False, num_classes=10, **kwargs)


def transforms_v2(ctx):
    """tv_tensors (Image, BoundingBoxes, Mask: Tensor subclasses with __torch_function__) through
    transforms.v2 and its functional kernels: the outputs' classes, metadata and values."""
    from torchvision import tv_tensors
    from torchvision.transforms import v2
    from torchvision.transforms.v2 import functional as TF
    pixels = (torch.arange(3 * 8 * 10) * 37 % 251).to(torch.uint8).reshape(3, 8, 10)
    image = tv_tensors.Image(pixels, device=ctx.device)
    boxes = tv_tensors.BoundingBoxes([[1, 1, 5, 6], [2, 0, 9, 7]], format="XYXY", canvas_size=(8, 10),
                                     device=ctx.device)
    mask = tv_tensors.Mask((torch.arange(8 * 10) % 3).reshape(8, 10), device=ctx.device)
    unit = v2.ToDtype(torch.float32, scale=True)(image)
    steps = {"hflip": v2.RandomHorizontalFlip(p=1.0), "vflip": v2.RandomVerticalFlip(p=1.0),
             # (resizes of float images: torch resizes uint8 ones natively on AVX2 CPUs, rounding differently)
             "resize": lambda *xs: v2.Resize((12, 14), antialias=False)(unit, *xs[1:]), "crop": v2.CenterCrop((6, 6)), "pad": v2.Pad([1, 2]),
             "boxes_cxcywh": v2.ConvertBoundingBoxFormat("CXCYWH"),
             "pipeline": v2.Compose([v2.ToDtype(torch.float32, scale=True), v2.RandomHorizontalFlip(p=1.0),
                                     v2.Resize((16, 20), antialias=False), v2.CenterCrop((12, 12)),
                                     v2.Normalize([0.5, 0.4, 0.3], [0.2, 0.25, 0.3])]),
             "rotate90": lambda *xs: [TF.rotate(x, 90, expand=True) for x in xs],
             "affine": lambda *xs: [TF.affine(x, angle=30.0, translate=[1, -1], scale=0.9, shear=[5.0, 0.0],
                                              interpolation=v2.InterpolationMode.BILINEAR) for x in xs[:1]] +
                                   [TF.affine(x, angle=30.0, translate=[1, -1], scale=0.9, shear=[5.0, 0.0]) for x in xs[1:]],
             "resize_aa": lambda *xs: [TF.resize(unit, [5, 4], antialias=True),
                                       TF.resize(unit, [3, 7], interpolation=v2.InterpolationMode.BICUBIC,
                                                 antialias=True),
                                       TF.resize(unit, [5, 6], interpolation=v2.InterpolationMode.LANCZOS,
                                                 antialias=True)]}
    for name, step in steps.items():
        for i, out in enumerate(step(image, boxes, mask)):
            key = f"v2/{name}/{i}"
            ctx.out(f"{key}/class", type(out).__name__)
            ctx.out(f"{key}/meta", (str(getattr(out, "format", "")), tuple(getattr(out, "canvas_size", ()))))
            ctx.out(key, out.as_subclass(torch.Tensor))
    ctx.out("v2/wrap", type(tv_tensors.wrap(image.as_subclass(torch.Tensor) + 1, like=image)).__name__)
    ctx.out("v2/plain_result", type(image.flip(-1)).__name__)


def run(ctx):
    for spec in ctx.args:
        if spec == "v2":
            transforms_v2(ctx)
            continue
        torch.manual_seed(0)
        model = _model(spec)
        ctx.same_weights(model, spec.replace(":", "_"))
        model.to(ctx.device).eval()
        x = ctx.same_input(lambda: torch.randn(2, 3, SIZE, SIZE), spec.replace(":", "_") + "-x").to(ctx.device)
        with torch.no_grad():
            ctx.out(f"{spec}/logits", model(x))
        target = torch.tensor([3, 7], device=ctx.device)
        # the gradient in eval mode: through batch statistics of 2 images (training mode) the first layer's
        # gradient is ill-conditioned (torch's own float32 differs from float64 by up to 3e-4 there)
        torch.nn.functional.cross_entropy(model(x), target).backward()
        first = next(p for p in model.parameters() if p.grad is not None)
        ctx.out(f"{spec}/grad", first.grad)
        model.train()
        for m in model.modules():
            if isinstance(m, torch.nn.Dropout):
                m.p = 0.0
        x = ctx.same_input(lambda: torch.randn(4, 3, SIZE, SIZE), spec.replace(":", "_") + "-x4").to(ctx.device)
        with torch.no_grad():
            loss = torch.nn.functional.cross_entropy(model(x), torch.tensor([3, 7, 0, 9], device=ctx.device))
            ctx.out(f"{spec}/train_loss", loss)
