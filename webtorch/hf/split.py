"""Weights larger than one WebGPU binding (maxStorageBufferBindingSize: 128 MiB on many phones; a 150k x 896
float16 embedding is 272 MB), held as blocks of rows, each a tensor of its own below the limit.

webtorch keeps a tensor in one buffer that kernels bind whole, so such a weight cannot be one tensor.
The loader (webtorch.hf.checkpoint) reads it from the shard in row ranges instead and puts a
SplitEmbedding / SplitLinear in place of the nn.Embedding / nn.Linear: the embedding looks each id up in
the block holding its row (the other blocks' lookups masked to zero), the linear layer computes each
block's output columns and concatenates them.
"""
import webtorch as torch

nn = torch.nn
F = torch.nn.functional


def rows_per_part(shape, dtype, device):
    """How many rows of a (rows, ...) weight fit one binding on device; None when the whole does."""
    if torch.device(device).type != "webgpu":
        return None
    from ..backend.webgpu import bucket, runtime
    from .. import webgpu
    limit = runtime().limits["max_storage_buffer_binding_size"]
    itemsize = 2 if dtype == torch.float16 and webgpu.has_float16() else 4  # narrower dtypes take 4 bytes there
    row = itemsize
    for s in shape[1:]:
        row *= s
    if bucket(row * shape[0]) <= limit:
        return None
    rows = max(1, limit // row)
    while rows > 1 and bucket(rows * row) > limit:
        rows -= 1
    return rows


class SplitRows(nn.Module):
    """parts: the row blocks of one (rows, ...) weight, in order (parameters parts.0, parts.1, ...)."""

    def __init__(self, parts):
        super().__init__()
        self.parts = nn.ParameterList(parts)
        self.starts = [0]
        for p in parts:
            self.starts.append(self.starts[-1] + p.shape[0])


class SplitEmbedding(SplitRows):
    def forward(self, ids):
        out = None
        for start, part in zip(self.starts, self.parts):
            local = ids - start
            inside = (local >= 0) & (local < part.shape[0])
            rows = F.embedding(local.clamp(0, part.shape[0] - 1), part) * inside.unsqueeze(-1).to(part.dtype)
            out = rows if out is None else out + rows
        return out


class SplitLinear(SplitRows):
    """x @ weight.T without bias, weight (out_features, in_features) split by output rows."""

    def forward(self, x):
        return torch.cat([F.linear(x, part) for part in self.parts], dim=-1)
