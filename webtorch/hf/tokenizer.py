"""A Hugging Face tokenizer.json of the byte-level BPE kind (GPT-2, Llama 3, Qwen2/2.5/3), in plain Python
(Pyodide has no `tokenizers`): encode(text) -> ids, decode(ids) -> text.

Byte-level BPE: text is split into words by the pre-tokenizer's pattern, each word's UTF-8 bytes become
printable characters (GPT-2's bytes_to_unicode table), then the merges are applied lowest rank first.
The split pattern is GPT-2's with Python's `re` classes for \\p{L} and \\p{N} (letters: [^\\W\\d_],
numbers: \\d), so a word boundary can differ from the Rust library's on rare scripts; the ids of a
word are the library's. Special tokens ("added_tokens") are matched before splitting.
"""
import functools
import json
import re

_SPLIT = re.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?[^\W\d_]+| ?\d+| ?[^\s\w]+|\s+(?!\S)|\s+""")


@functools.cache
def bytes_to_unicode():
    """GPT-2's table: each byte -> a printable character (printable bytes map to themselves)."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    chars, extra = {}, 0
    for b in range(256):
        if b in keep:
            chars[b] = chr(b)
        else:
            chars[b] = chr(256 + extra)
            extra += 1
    return chars


class Tokenizer:
    def __init__(self, spec):
        model = spec["model"]
        if model.get("type") != "BPE":
            raise NotImplementedError(f"webtorch.hf.Tokenizer reads byte-level BPE tokenizers, not {model.get('type')}")
        self.vocab = dict(model["vocab"])
        merges = [tuple(m.split(" ", 1)) if isinstance(m, str) else tuple(m) for m in model.get("merges", [])]
        self.ranks = {pair: i for i, pair in enumerate(merges)}
        self.special = {t["content"]: t["id"] for t in spec.get("added_tokens", [])}
        for content, i in self.special.items():
            self.vocab.setdefault(content, i)
        self.inverse = {i: s for s, i in self.vocab.items()}
        self.byte_chars = bytes_to_unicode()
        self.char_bytes = {c: b for b, c in self.byte_chars.items()}
        self._special_split = re.compile("(" + "|".join(map(re.escape, sorted(self.special, key=len, reverse=True)))
                                         + ")") if self.special else None

    @classmethod
    def from_str(cls, text):
        return cls(json.loads(text))

    @classmethod
    def from_file(cls, path):
        with open(path, encoding="utf-8") as f:
            return cls.from_str(f.read())

    def _bpe(self, word):
        parts = list(word)
        while len(parts) > 1:
            ranked = [(self.ranks.get(pair, len(self.ranks)), i) for i, pair in enumerate(zip(parts, parts[1:]))]
            rank, i = min(ranked)
            if rank == len(self.ranks):
                break
            parts[i:i + 2] = [parts[i] + parts[i + 1]]
        return [self.vocab[p] for p in parts]

    def encode(self, text):
        pieces = self._special_split.split(text) if self._special_split else [text]
        ids = []
        for piece in pieces:
            if piece in self.special:
                ids.append(self.special[piece])
                continue
            for word in _SPLIT.findall(piece):
                ids += self._bpe("".join(self.byte_chars[b] for b in word.encode("utf-8")))
        return ids

    def decode(self, ids, skip_special_tokens=False):
        out, text = bytearray(), []
        for i in ids:
            token = self.inverse.get(i, "")
            if token in self.special:
                if not skip_special_tokens:
                    text.append(out.decode("utf-8", errors="replace") + token)
                    out.clear()
                continue
            out += bytes(self.char_bytes[c] for c in token if c in self.char_bytes)
        return "".join(text) + out.decode("utf-8", errors="replace")
