"""lucidrains' x-transformers and vit-pytorch under torch and webtorch-as-torch, from small configs with the
same weights: a decoder LM (rotary embeddings, RMSNorm, GLU feed-forward) with its loss, gradient and
greedy generation, an encoder with attention masks, a ViTransformerWrapper; vit-pytorch's ViT and
SimpleViT (eval logits, a loss's gradient)."""
import torch
from x_transformers import AutoregressiveWrapper, Decoder, Encoder, TransformerWrapper, ViTransformerWrapper
from vit_pytorch import SimpleViT, ViT


def _models():
    return {
        "decoder": TransformerWrapper(num_tokens=64, max_seq_len=32, attn_layers=Decoder(
            dim=32, depth=2, heads=4, rotary_pos_emb=True, use_rmsnorm=True, ff_glu=True, attn_flash=False)),
        "encoder": TransformerWrapper(num_tokens=64, max_seq_len=32, attn_layers=Encoder(
            dim=32, depth=2, heads=4, attn_num_mem_kv=2, residual_attn=True)),
        "x_vit": ViTransformerWrapper(image_size=16, patch_size=4, num_classes=5,
                                      attn_layers=Encoder(dim=32, depth=1, heads=4)),
        "vit": ViT(image_size=16, patch_size=4, num_classes=5, dim=32, depth=2, heads=4, mlp_dim=64, pool="cls"),
        "simple_vit": SimpleViT(image_size=16, patch_size=4, num_classes=5, dim=32, depth=2, heads=4, mlp_dim=64),
    }


def run(ctx):
    torch.manual_seed(0)
    models = _models()
    for name, model in models.items():
        ctx.same_weights(model, name)
        model.to(ctx.device).eval()
    ids = torch.tensor([[5, 17, 33, 2, 41, 9, 60, 11], [7, 25, 3, 63, 14, 6, 1, 0]], device=ctx.device)
    mask = torch.tensor([[True] * 8, [True] * 6 + [False] * 2], device=ctx.device)
    images = ctx.same_input(lambda: torch.randn(2, 3, 16, 16), "images").to(ctx.device)
    decoder = models["decoder"]
    with torch.no_grad():
        ctx.out("decoder/logits", decoder(ids))
        ctx.out("encoder/logits", models["encoder"](ids, mask=mask))
        wrapper = AutoregressiveWrapper(decoder)
        ctx.out("decoder/generate", wrapper.generate(ids[:, :3], 5, temperature=0.0, cache_kv=False))
        for name in ("x_vit", "vit", "simple_vit"):
            ctx.out(f"{name}/logits", models[name](images))
    wrapper = AutoregressiveWrapper(decoder)
    loss = wrapper(ids)
    loss.backward()
    ctx.out("decoder/loss", loss)
    ctx.out("decoder/grad_emb", decoder.token_emb.emb.weight.grad)
    vit = models["vit"].train()
    loss = torch.nn.functional.cross_entropy(vit(images), torch.tensor([1, 3], device=ctx.device))
    loss.backward()
    ctx.out("vit/loss", loss)
    ctx.out("vit/grad_patch", vit.to_patch_embedding[2].weight.grad)
