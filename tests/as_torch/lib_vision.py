"""Image classifiers under torch and webtorch-as-torch, the same weights: torchvision's models
(ctx.args "tv:<name>") and timm's create_model ("timm:<name>"), small variants at 32x32 or 64x64:
eval logits, then a training-mode forward (batch norm on batch statistics), cross-entropy backward
and the gradient of the first parameter."""
import torch


def _model(spec):
    library, _, name = spec.partition(":")
    if library == "tv":
        import torchvision
        if name == "vit":
            model = torchvision.models.VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2,
                                                         hidden_dim=32, mlp_dim=64, num_classes=10)
            torch.nn.init.normal_(model.heads.head.weight, std=0.5)  # torchvision starts the head at 0
            return model, 32
        return getattr(torchvision.models, name)(num_classes=10), 64
    import timm
    size = 32 if "vit" in name else 64
    kwargs = dict(img_size=size) if "vit" in name else {}
    return timm.create_model(name, pretrained=False, num_classes=10, **kwargs), size


def run(ctx):
    for spec in ctx.args:
        torch.manual_seed(0)
        model, size = _model(spec)
        ctx.same_weights(model, spec.replace(":", "_"))
        model.to(ctx.device).eval()
        x = ctx.same_input(lambda: torch.randn(2, 3, size, size), spec.replace(":", "_") + "-x").to(ctx.device)
        with torch.no_grad():
            ctx.out(f"{spec}/logits", model(x))
        model.train()
        for m in model.modules():
            if isinstance(m, torch.nn.Dropout):
                m.p = 0.0
        loss = torch.nn.functional.cross_entropy(model(x), torch.tensor([3, 7], device=ctx.device))
        loss.backward()
        ctx.out(f"{spec}/loss", loss)
        first = next(p for p in model.parameters() if p.grad is not None)
        ctx.out(f"{spec}/grad", first.grad)
