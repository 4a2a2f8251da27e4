"""einops under torch and webtorch-as-torch: rearrange/reduce/repeat/einsum/pack and the layers of
einops.layers.torch in a small model, forward and backward."""
import torch
from einops import einsum, pack, rearrange, reduce, repeat, unpack
from einops.layers.torch import EinMix, Rearrange, Reduce


def run(ctx):
    x = ctx.same_input(lambda: torch.randn(2, 3, 4, 6), "x").to(ctx.device).requires_grad_()
    ctx.out("rearrange", rearrange(x, "b c (h p) w -> b (h w) (p c)", p=2))
    ctx.out("reduce", reduce(x, "b c h w -> b c", "max"))
    ctx.out("repeat", repeat(x[0, 0], "h w -> h w r", r=3))
    ctx.out("einsum", einsum(x, x, "b c h w, b d h w -> b c d"))
    packed, shapes = pack([x[:, 0], x[:, :2].sum(1)], "b *")
    ctx.out("pack", packed)
    ctx.out("unpack", unpack(packed, shapes, "b *")[1])
    model = torch.nn.Sequential(
        Rearrange("b c (h p1) (w p2) -> b (h w) (p1 p2 c)", p1=2, p2=2),
        torch.nn.Linear(12, 8),
        EinMix("b t c -> b t d", weight_shape="c d", bias_shape="d", c=8, d=5),
        Reduce("b t d -> b d", "mean"))
    ctx.same_weights(model)
    model.to(ctx.device)
    y = model(x)
    ctx.out("model", y)
    (y ** 2).sum().backward()
    ctx.out("grad_x", x.grad)
    ctx.out("grad_linear", model[1].weight.grad)
