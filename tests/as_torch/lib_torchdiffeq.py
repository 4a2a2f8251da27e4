"""torchdiffeq under torch and webtorch-as-torch: a small neural ODE solved by fixed-step (euler,
midpoint, rk4) and adaptive (dopri5, bosh3) solvers, gradients by backpropagation
through the solver and by the adjoint method, and an event-terminated solve."""
import torch
from torchdiffeq import odeint, odeint_adjoint, odeint_event


class Field(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(2, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))

    def forward(self, t, y):
        return self.net(y) * torch.cos(t)


def run(ctx):
    torch.manual_seed(0)
    field = ctx.same_weights(Field()).to(ctx.device)
    y0 = torch.tensor([[1.0, -0.5], [0.3, 0.8]], device=ctx.device)
    t = torch.linspace(0.0, 1.0, 3, device=ctx.device)
    tolerances = dict(rtol=1e-4, atol=1e-5)
    for method, options in [("euler", dict(step_size=0.25)), ("midpoint", dict(step_size=0.25)),
                            ("rk4", dict(step_size=0.25)), ("dopri5", {}), ("bosh3", {})]:
        y = odeint(field, y0, t, method=method, options=options, **tolerances)
        ctx.out(f"{method}", y)
    y0_grad = y0.clone().requires_grad_()
    loss = odeint(field, y0_grad, t, method="dopri5", **tolerances)[-1].pow(2).sum()
    loss.backward()
    ctx.out("backprop/grad_y0", y0_grad.grad)
    ctx.out("backprop/grad_w", field.net[0].weight.grad)
    field.zero_grad()
    y0_adj = y0.clone().requires_grad_()
    loss = odeint_adjoint(field, y0_adj, t, method="bosh3", **tolerances)[-1].pow(2).sum()
    loss.backward()
    ctx.out("adjoint/loss", loss)
    ctx.out("adjoint/grad_y0", y0_adj.grad)
    ctx.out("adjoint/grad_w", field.net[0].weight.grad)

    def falling(t, state):  # a ball under gravity: position, velocity
        return torch.stack([state[1], torch.full_like(state[1], -9.81)])

    def hits_ground(t, state):
        return state[0]

    event_t, states = odeint_event(falling, torch.tensor([10.0, 0.0], device=ctx.device),
                                   torch.tensor(0.0, device=ctx.device), event_fn=hits_ground, method="rk4",
                                   options=dict(step_size=0.1))
    ctx.out("event/t", event_t)
    ctx.out("event/state", states[-1])
