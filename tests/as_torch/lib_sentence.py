"""sentence-transformers' encode under torch and webtorch-as-torch on the all-MiniLM-L6-v2 weights
scripts/setup.sh unpacks into .cache/minilm (config, safetensors, tokenizer): the model's own stack
(Transformer, mean pooling, Normalize) built from that folder, embeddings of a padded batch."""
import os

import torch
from sentence_transformers import SentenceTransformer, models

FOLDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".cache", "minilm")
SENTENCES = ["import torch that is webtorch", "A man is eating food.",
             "The quick brown fox jumps over the lazy dog, twice over, in the browser."]


def run(ctx):
    transformer = models.Transformer(FOLDER, max_seq_length=128)
    pooling = models.Pooling(transformer.get_embedding_dimension(), "mean")
    model = SentenceTransformer(modules=[transformer, pooling, models.Normalize()], device=ctx.device)
    ctx.out("embeddings", model.encode(SENTENCES, convert_to_tensor=True, batch_size=8))
    unnormalized = SentenceTransformer(modules=[transformer, pooling], device=ctx.device)
    ctx.out("unnormalized", unnormalized.encode(SENTENCES[:2], convert_to_tensor=True))
