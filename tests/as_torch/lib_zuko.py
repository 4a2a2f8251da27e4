"""zuko's normalizing flows under torch and webtorch-as-torch from the same weights: conditional MAF, NSF
(rational-quadratic splines) and NICE: log_prob of given points and its gradient, and the sample path (the
flow's inverse transform of given base draws); zuko's BoxUniform and DiagNormal."""
import torch
import zuko


def run(ctx):
    torch.manual_seed(0)
    flows = {"maf": zuko.flows.MAF(3, 2, transforms=2, hidden_features=(16,)),
             "nsf": zuko.flows.NSF(3, 2, transforms=2, hidden_features=(16,), bins=4),
             "nice": zuko.flows.NICE(3, 2, transforms=2, hidden_features=(16,))}
    data = ctx.same_input(lambda: dict(x=torch.randn(4, 3), c=torch.randn(4, 2), z=torch.randn(4, 3)), "data")
    x, c, z = (data[k].to(ctx.device) for k in ("x", "c", "z"))
    for name, flow in flows.items():
        ctx.same_weights(flow, name)
        flow.to(ctx.device)
        dist = flow(c)
        log_p = dist.log_prob(x)
        log_p.mean().neg().backward()
        ctx.out(f"{name}/log_prob", log_p)
        ctx.out(f"{name}/grad", next(p for p in flow.parameters() if p.grad is not None).grad)
        with torch.no_grad():
            ctx.out(f"{name}/sample_path", dist.transform.inv(z))
    box = zuko.distributions.BoxUniform(torch.zeros(3, device=ctx.device), torch.ones(3, device=ctx.device))
    ctx.out("box/log_prob", box.log_prob(torch.full((2, 3), 0.5, device=ctx.device)))
    normal = zuko.distributions.DiagNormal(torch.zeros(3, device=ctx.device), torch.full((3,), 2.0, device=ctx.device))
    ctx.out("diag_normal/log_prob", normal.log_prob(x))
