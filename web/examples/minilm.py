# all-MiniLM-L6-v2 sentence embeddings, as ordinary PyTorch code: runs under PyTorch and, unchanged,
# under webtorch (in Pyodide there is no `torch`, so webtorch is imported under that name).
#
#   model = MiniLM(device="webgpu").eval()           # BertModel: embeddings, 6 encoder layers, pooler
#   model.load_state_dict(state_dict_from_safetensors(open("model.safetensors", "rb").read(), "webgpu"))
#   ids, mask = WordPiece(open("vocab.txt").read()).batch(["a sentence", "another one"])
#   emb = model.embed(torch.tensor(ids, device="webgpu"), torch.tensor(mask, device="webgpu"))
#
# The state_dict names are the checkpoint's (sentence-transformers/all-MiniLM-L6-v2, model.safetensors):
# embeddings.word_embeddings.weight, encoder.layer.0.attention.self.query.weight, ..., pooler.dense.bias.
# Sentence embedding = mean of the last hidden states over the real tokens, L2-normalised.
import unicodedata

try:
    import torch
except ImportError:  # Pyodide: webtorch is PyTorch here
    import webtorch as torch

nn = torch.nn
F = torch.nn.functional

CONFIG = dict(vocab_size=30522, hidden_size=384, num_hidden_layers=6, num_attention_heads=12,
              intermediate_size=1536, max_position_embeddings=512, type_vocab_size=2, layer_norm_eps=1e-12)


class BertEmbeddings(nn.Module):
    def __init__(self, c, device):
        super().__init__()
        self.word_embeddings = nn.Embedding(c["vocab_size"], c["hidden_size"], padding_idx=0, device=device)
        self.position_embeddings = nn.Embedding(c["max_position_embeddings"], c["hidden_size"], device=device)
        self.token_type_embeddings = nn.Embedding(c["type_vocab_size"], c["hidden_size"], device=device)
        self.LayerNorm = nn.LayerNorm(c["hidden_size"], eps=c["layer_norm_eps"], device=device)
        self.register_buffer("position_ids", torch.arange(c["max_position_embeddings"], device=device).reshape(1, -1))

    def forward(self, input_ids, token_type_ids):
        positions = self.position_ids[:, :input_ids.shape[1]]
        x = self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids) + \
            self.position_embeddings(positions)
        return self.LayerNorm(x)


class BertSelfAttention(nn.Module):
    def __init__(self, c, device):
        super().__init__()
        self.heads = c["num_attention_heads"]
        self.query = nn.Linear(c["hidden_size"], c["hidden_size"], device=device)
        self.key = nn.Linear(c["hidden_size"], c["hidden_size"], device=device)
        self.value = nn.Linear(c["hidden_size"], c["hidden_size"], device=device)

    def forward(self, x, keep):
        b, n, d = x.shape
        q, k, v = (lin(x).reshape(b, n, self.heads, d // self.heads).transpose(1, 2)
                   for lin in (self.query, self.key, self.value))
        context = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)  # keep: (b, 1, 1, n) bool
        return context.transpose(1, 2).reshape(b, n, d)


class BertSelfOutput(nn.Module):
    def __init__(self, c, inner, device):
        super().__init__()
        self.dense = nn.Linear(inner, c["hidden_size"], device=device)
        self.LayerNorm = nn.LayerNorm(c["hidden_size"], eps=c["layer_norm_eps"], device=device)

    def forward(self, h, residual):
        return self.LayerNorm(self.dense(h) + residual)


class BertAttention(nn.Module):
    def __init__(self, c, device):
        super().__init__()
        self.self = BertSelfAttention(c, device)
        self.output = BertSelfOutput(c, c["hidden_size"], device)

    def forward(self, x, keep):
        return self.output(self.self(x, keep), x)


class BertIntermediate(nn.Module):
    def __init__(self, c, device):
        super().__init__()
        self.dense = nn.Linear(c["hidden_size"], c["intermediate_size"], device=device)

    def forward(self, x):
        return F.gelu(self.dense(x))


class BertLayer(nn.Module):
    def __init__(self, c, device):
        super().__init__()
        self.attention = BertAttention(c, device)
        self.intermediate = BertIntermediate(c, device)
        self.output = BertSelfOutput(c, c["intermediate_size"], device)

    def forward(self, x, keep):
        x = self.attention(x, keep)
        return self.output(self.intermediate(x), x)


class BertEncoder(nn.Module):
    def __init__(self, c, device):
        super().__init__()
        self.layer = nn.ModuleList([BertLayer(c, device) for _ in range(c["num_hidden_layers"])])

    def forward(self, x, keep):
        for layer in self.layer:
            x = layer(x, keep)
        return x


class BertPooler(nn.Module):  # in the checkpoint; sentence embeddings use mean pooling instead
    def __init__(self, c, device):
        super().__init__()
        self.dense = nn.Linear(c["hidden_size"], c["hidden_size"], device=device)

    def forward(self, x):
        return torch.tanh(self.dense(x[:, 0]))


class MiniLM(nn.Module):
    """BertModel with all-MiniLM-L6-v2's shape; embed() gives its sentence embeddings."""

    def __init__(self, config=None, device=None):
        super().__init__()
        c = dict(CONFIG, **(config or {}))
        self.embeddings = BertEmbeddings(c, device)
        self.encoder = BertEncoder(c, device)
        self.pooler = BertPooler(c, device)

    def forward(self, input_ids, attention_mask, token_type_ids=None):
        """The last hidden states, (batch, tokens, hidden)."""
        if token_type_ids is None:
            token_type_ids = torch.zeros_like(input_ids)
        keep = (attention_mask > 0).reshape(input_ids.shape[0], 1, 1, input_ids.shape[1])
        return self.encoder(self.embeddings(input_ids, token_type_ids), keep)

    def embed(self, input_ids, attention_mask):
        """Sentence embeddings (batch, hidden): mean over the real tokens, L2-normalised."""
        hidden = self(input_ids, attention_mask)
        mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
        mean = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
        return mean / mean.norm(dim=1, keepdim=True).clamp(min=1e-12)


def encode(model, tokenizer, sentences, device="webgpu"):
    """Unit-length embeddings (len(sentences), hidden) of a list of strings, as one batch."""
    ids, mask = tokenizer.batch(sentences)
    with torch.no_grad():
        return model.embed(torch.tensor(ids, device=device), torch.tensor(mask, device=device))


def state_dict_from_safetensors(data, device="cpu"):
    """The checkpoint's tensors from model.safetensors' bytes (in Pyodide also a fetched JS ArrayBuffer)."""
    if torch.__name__ == "webtorch":
        return torch.safetensors.load(data, device=device)
    from safetensors.torch import load
    return {k: v.to(device) for k, v in load(bytes(data)).items()}


# -- tokenizer: BERT's uncased WordPiece (what tokenizer.json of the checkpoint does) ---------------
class WordPiece:
    """vocab: the text of vocab.txt. Lower-cases, strips accents, splits on whitespace, punctuation and
    CJK characters, then greedy longest-match WordPiece; adds [CLS] ... [SEP]."""

    def __init__(self, vocab, max_length=256):
        self.vocab = {token: i for i, token in enumerate(vocab.splitlines())}
        self.max_length = max_length
        self.cls, self.sep, self.unk = self.vocab["[CLS]"], self.vocab["[SEP]"], self.vocab["[UNK]"]

    @staticmethod
    def _is_punctuation(ch):
        cp = ord(ch)
        if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
            return True
        return unicodedata.category(ch).startswith("P")

    @staticmethod
    def _is_cjk(cp):
        return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF
                or 0x2A700 <= cp <= 0x2B73F or 0x2B740 <= cp <= 0x2B81F or 0x2B820 <= cp <= 0x2CEAF
                or 0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F)

    def _words(self, text):
        chars = []
        for ch in text:
            cp = ord(ch)
            cat = unicodedata.category(ch)
            if cp == 0 or cp == 0xFFFD or (cat.startswith("C") and ch not in "\t\n\r"):
                continue  # control characters are dropped
            if ch in " \t\n\r" or cat == "Zs":
                chars.append(" ")
            elif self._is_cjk(cp):
                chars.append(f" {ch} ")
            else:
                chars.append(ch)
        text = unicodedata.normalize("NFD", "".join(ch.lower() for ch in chars))  # per character: no final sigma
        text = "".join(ch for ch in text if unicodedata.category(ch) != "Mn")  # strip accents
        for word in text.split():
            start = 0
            for i, ch in enumerate(word):
                if self._is_punctuation(ch):
                    if i > start:
                        yield word[start:i]
                    yield ch
                    start = i + 1
            if start < len(word):
                yield word[start:]

    def _pieces(self, word):
        if len(word) > 100:
            return [self.unk]
        out, start = [], 0
        while start < len(word):
            end = len(word)
            while end > start:
                piece = ("##" if start else "") + word[start:end]
                if piece in self.vocab:
                    out.append(self.vocab[piece])
                    break
                end -= 1
            else:
                return [self.unk]
            start = end
        return out

    def encode(self, text):
        """Token ids of one text: [CLS] pieces [SEP], truncated to max_length."""
        ids = [i for word in self._words(text) for i in self._pieces(word)]
        return [self.cls] + ids[:self.max_length - 2] + [self.sep]

    def batch(self, texts):
        """(input_ids, attention_mask) as lists of equal-length rows, padded with 0 ([PAD])."""
        rows = [self.encode(t) for t in texts]
        n = max(len(r) for r in rows)
        return [r + [0] * (n - len(r)) for r in rows], [[1] * len(r) + [0] * (n - len(r)) for r in rows]
