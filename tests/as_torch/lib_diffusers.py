"""diffusers under torch and webtorch-as-torch: tiny UNet2DModel and UNet2DConditionModel from configs
(the same weights), the noise prediction and a training loss's gradient, DDPMScheduler's add_noise and
step (its x0 prediction and mean: the step's added noise comes from the generator), and a DDIM
sampling loop (eta 0: deterministic) driven by the UNet."""
import torch
import diffusers


def _unets():
    common = dict(sample_size=8, layers_per_block=1, block_out_channels=(8, 16), norm_num_groups=4)
    return {
        "unet2d": diffusers.UNet2DModel(in_channels=3, out_channels=3, down_block_types=("DownBlock2D", "AttnDownBlock2D"),
                                        up_block_types=("AttnUpBlock2D", "UpBlock2D"), attention_head_dim=4, **common),
        "unet2d_cond": diffusers.UNet2DConditionModel(
            in_channels=4, out_channels=4, down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"),
            up_block_types=("UpBlock2D", "CrossAttnUpBlock2D"), cross_attention_dim=8, attention_head_dim=4, **common),
    }


def run(ctx):
    torch.manual_seed(0)
    unets = _unets()
    inputs = ctx.same_input(lambda: dict(x3=torch.randn(2, 3, 8, 8), x4=torch.randn(2, 4, 8, 8), text=torch.randn(2, 5, 8),
                                         noise=torch.randn(2, 3, 8, 8)), "inputs")
    inputs = {k: v.to(ctx.device) for k, v in inputs.items()}
    timesteps = torch.tensor([10, 500], device=ctx.device)
    for name, unet in unets.items():
        ctx.same_weights(unet, name)
        unet.to(ctx.device)
        cond = name == "unet2d_cond"
        x = inputs["x4" if cond else "x3"]
        extra = dict(encoder_hidden_states=inputs["text"]) if cond else {}
        pred = unet(x, timesteps, **extra).sample
        ctx.out(f"{name}/pred", pred)
        loss = torch.nn.functional.mse_loss(pred, torch.zeros_like(pred))
        loss.backward()
        ctx.out(f"{name}/loss", loss)
        ctx.out(f"{name}/grad_conv_in", unet.conv_in.weight.grad)
    unet = unets["unet2d"].eval()
    ddpm = diffusers.DDPMScheduler(num_train_timesteps=1000, beta_schedule="squaredcos_cap_v2")
    noisy = ddpm.add_noise(inputs["x3"], inputs["noise"], timesteps)
    ctx.out("ddpm/add_noise", noisy)
    step = ddpm.step(inputs["noise"], 500, noisy[1:])
    ctx.out("ddpm/pred_original", step.pred_original_sample)
    ddim = diffusers.DDIMScheduler(num_train_timesteps=1000, beta_schedule="scaled_linear", clip_sample=False)
    ddim.set_timesteps(3)
    ctx.out("ddim/timesteps", ddim.timesteps)
    sample = inputs["noise"]
    with torch.no_grad():
        for t in ddim.timesteps:
            sample = ddim.step(unet(sample, t).sample, t, sample, eta=0.0).prev_sample
    ctx.out("ddim/sample", sample)
