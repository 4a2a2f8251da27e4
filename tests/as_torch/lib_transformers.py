"""transformers from tiny configs under torch and webtorch-as-torch: per model family (ctx.args picks
them), the same weights (torch's initialisation, loaded by the webtorch run), then logits of a padded
batch, greedy generate() tokens, one AdamW training step (loss, then logits after the step), and a
save_pretrained -> from_pretrained round trip (logits of the reloaded model), and torch's model saved in
20 KB shards loaded by the webtorch run."""
import torch
import transformers

VOCAB = 96


def _configs():
    common = dict(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64)
    return {
        "bert": (transformers.BertConfig(**common, max_position_embeddings=64), transformers.BertForMaskedLM),
        "gpt2": (transformers.GPT2Config(vocab_size=VOCAB, n_embd=32, n_layer=2, n_head=4, n_positions=64,
                                         bos_token_id=1, eos_token_id=2),
                 transformers.GPT2LMHeadModel),
        "llama": (transformers.LlamaConfig(**common, num_key_value_heads=2, max_position_embeddings=64),
                  transformers.LlamaForCausalLM),
        "qwen2": (transformers.Qwen2Config(**common, num_key_value_heads=2, max_position_embeddings=64),
                  transformers.Qwen2ForCausalLM),
        "t5": (transformers.T5Config(vocab_size=VOCAB, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4,
                                     decoder_start_token_id=0, pad_token_id=0, eos_token_id=1, dropout_rate=0.0),
               transformers.T5ForConditionalGeneration),
        "bart": (transformers.BartConfig(vocab_size=VOCAB, d_model=32, encoder_layers=2, decoder_layers=2,
                                         encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=64,
                                         decoder_ffn_dim=64, max_position_embeddings=64, dropout=0.0,
                                         attention_dropout=0.0, activation_dropout=0.0),
                 transformers.BartForConditionalGeneration),
    }


def _inputs(device):
    ids = torch.tensor([[5, 17, 33, 2, 41, 9, 60, 11], [0, 0, 7, 25, 3, 88, 14, 6]], device=device)
    mask = torch.tensor([[1] * 8, [0, 0] + [1] * 6], device=device)
    return ids, mask


def run(ctx):
    configs = _configs()
    for family in ctx.args:
        config, cls = configs[family]
        encoder_decoder = config.is_encoder_decoder
        causal = not encoder_decoder and family != "bert"
        torch.manual_seed(0)
        model = cls(config)
        ctx.same_weights(model, family)
        model.to(ctx.device).eval()
        ids, mask = _inputs(ctx.device)
        extra = dict(decoder_input_ids=ids[:, :5]) if encoder_decoder else {}  # decoder-only: a left-padded batch
        with torch.no_grad():
            logits = model(input_ids=ids, attention_mask=mask, **extra).logits
        ctx.out(f"{family}/logits", logits)
        sharded = ctx.path(f"{family}-torch-sharded")  # save_pretrained by real torch, cut into 20 KB shards
        if ctx.reference:
            model.save_pretrained(sharded, max_shard_size="20KB")
            ctx.out(f"{family}/logits_from_torch_shards", logits)
        else:  # transformers' own from_pretrained reads the index and the shards through webtorch
            with torch.no_grad():
                ctx.out(f"{family}/logits_from_torch_shards", cls.from_pretrained(sharded).to(ctx.device).eval()(
                    input_ids=ids, attention_mask=mask, **extra).logits)
        if causal or encoder_decoder:
            with torch.no_grad():
                tokens = model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=6, do_sample=False,
                                        pad_token_id=0)
            ctx.out(f"{family}/generate", tokens)
        model.train()  # dropout is 0 in every config (and module): the step is deterministic
        for m in model.modules():
            if isinstance(m, torch.nn.Dropout):
                m.p = 0.0
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
        labels = ids.clone()
        out = model(input_ids=ids, attention_mask=mask, labels=labels)
        out.loss.backward()
        ctx.out(f"{family}/loss", out.loss)
        optimizer.step()
        model.eval()
        with torch.no_grad():
            ctx.out(f"{family}/logits_after_step", model(input_ids=ids, attention_mask=mask, **extra).logits)
        if not ctx.reference:  # the round trip runs in the webtorch process; the result must equal torch's logits
            path = ctx.path(f"{family}-{ctx.mode}-{ctx.device}-saved")
            model.save_pretrained(path)
            reloaded = cls.from_pretrained(path).to(ctx.device).eval()
            with torch.no_grad():
                ctx.out(f"{family}/logits_after_step_reloaded",
                        reloaded(input_ids=ids, attention_mask=mask, **extra).logits)
        else:
            ctx.out(f"{family}/logits_after_step_reloaded", ctx.results[f"{family}/logits_after_step"])
