"""peft on a tiny Llama from a config under torch and webtorch-as-torch (ctx.args picks the adapters):
get_peft_model, the same weights (the adapters' too), logits, a training step (loss, an adapter's
gradient, logits after AdamW), the adapter switched off, and merge_and_unload's plain model."""
import torch
import transformers
import peft


def _adapter(name):
    attention = ["q_proj", "v_proj"]
    return {
        "lora": peft.LoraConfig(r=4, lora_alpha=8, target_modules=attention, lora_dropout=0.0, init_lora_weights=False),
        "dora": peft.LoraConfig(r=4, lora_alpha=8, target_modules=attention, lora_dropout=0.0, use_dora=True,
                                init_lora_weights=False),
        "ia3": peft.IA3Config(target_modules=["k_proj", "v_proj", "down_proj"], feedforward_modules=["down_proj"],
                              init_ia3_weights=False),
    }[name]


def run(ctx):
    config = transformers.LlamaConfig(vocab_size=64, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                                      num_key_value_heads=1, intermediate_size=32, max_position_embeddings=32)
    ids = torch.tensor([[5, 17, 33, 2, 41, 9], [7, 25, 3, 60, 14, 6]], device=ctx.device)
    for name in ctx.args:
        torch.manual_seed(0)
        model = peft.get_peft_model(transformers.LlamaForCausalLM(config), _adapter(name))
        ctx.same_weights(model, name)
        model.to(ctx.device)
        ctx.out(f"{name}/trainable", sum(p.numel() for p in model.parameters() if p.requires_grad))
        out = model(input_ids=ids, labels=ids)
        ctx.out(f"{name}/logits", out.logits)
        out.loss.backward()
        ctx.out(f"{name}/loss", out.loss)
        trained = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
        ctx.out(f"{name}/grad_names", [n for n, _ in trained])
        ctx.out(f"{name}/grad", trained[0][1].grad)
        torch.optim.AdamW([p for _, p in trained], lr=1e-2).step()
        with torch.no_grad():
            ctx.out(f"{name}/logits_after_step", model(input_ids=ids).logits)
            with model.disable_adapter():
                ctx.out(f"{name}/logits_base", model(input_ids=ids).logits)
            merged = model.merge_and_unload()
            ctx.out(f"{name}/merged_type", type(merged).__name__)
            ctx.out(f"{name}/logits_merged", merged(input_ids=ids).logits)
