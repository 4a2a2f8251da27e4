"""Image classifiers under torch and webtorch-as-torch, the same weights: torchvision's models
(ctx.args "tv:<name>") and timm's create_model ("timm:<name>": timm's own test_* configurations, each
architecture family at ~0.1-0.4 M parameters), at 32x32: eval logits and the cross-entropy
gradient of the first parameter (batch 2), and a training-mode loss (batch norm on the statistics of
4 images: of 2 at 1x1 it is ill-conditioned, torch's own float32 then differs from its float64 by up
to 2e-4)."""
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


def run(ctx):
    for spec in ctx.args:
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
