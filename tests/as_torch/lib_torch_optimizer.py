"""torch-optimizer's optimizers under torch and webtorch-as-torch: each takes three steps on the same small
regression model from the same weights; the parameters after them. (Shampoo is left out: its float32 SVD of
near-singular preconditioners differs from torch's own float64 answer by ~1e-3, any float32 SVD's.)"""
import torch
import torch_optimizer as optim


def _optimizers(params):
    return {"adabound": lambda: optim.AdaBound(params(), lr=1e-2), "lamb": lambda: optim.Lamb(params(), lr=1e-2),
            "yogi": lambda: optim.Yogi(params(), lr=1e-2), "diffgrad": lambda: optim.DiffGrad(params(), lr=1e-2),
            "adabelief": lambda: optim.AdaBelief(params(), lr=1e-2), "qhadam": lambda: optim.QHAdam(params(), lr=1e-2),
            "madgrad": lambda: optim.MADGRAD(params(), lr=1e-2), "novograd": lambda: optim.NovoGrad(params(), lr=1e-2),
            "ranger": lambda: optim.Ranger(params(), lr=1e-2),
            "lookahead": lambda: optim.Lookahead(torch.optim.SGD(params(), lr=0.1), k=2, alpha=0.5)}


def run(ctx):
    data = ctx.same_input(lambda: dict(x=torch.randn(8, 4), y=torch.randn(8, 2)), "data")
    x, y = data["x"].to(ctx.device), data["y"].to(ctx.device)
    torch.manual_seed(0)
    model = ctx.same_weights(torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.Tanh(), torch.nn.Linear(6, 2)))
    initial = {k: v.clone() for k, v in model.state_dict().items()}
    model.to(ctx.device)
    for name, make in _optimizers(model.parameters).items():
        model.load_state_dict(initial)
        optimizer = make()
        for _ in range(3):
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
        for key, value in model.state_dict().items():
            ctx.out(f"{name}/{key}", value)
