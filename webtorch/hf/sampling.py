"""Next-token choice on the device: greedy (argmax) or sampling with temperature, top-k and top-p, as
transformers' logits warpers define them (temperature, then top-k, then top-p), ending in one (batch,)
int64 tensor, so a decode step reads back only its tokens.

Sampling draws with the Gumbel-max trick: argmax(logits + g), g = -log(-log(u)) with u uniform in
[0, 1), picks index i with probability softmax(logits)_i, exactly what multinomial(softmax(logits))
draws, with no host round trip (webtorch's multinomial validates its input by reading it back).
"""
import webtorch as torch


def warp(logits, temperature=1.0, top_k=None, top_p=None):
    """The logits with transformers' TemperatureLogitsWarper, TopKLogitsWarper and TopPLogitsWarper
    applied: removed tokens become -inf. logits: (..., vocab), float."""
    if temperature != 1.0:
        logits = logits / temperature
    if top_k is not None and 0 < top_k < logits.shape[-1]:
        values, indices = logits.topk(top_k, dim=-1)
        logits = logits.masked_fill(logits < values[..., -1:], float("-inf"))
        if top_p is not None and top_p < 1.0:
            return top_p_of_top_k(logits, values, indices, top_p)
    if top_p is not None and top_p < 1.0:
        # ascending order: a token goes when the probability of it and every less likely token is at
        # most 1 - top_p; the most likely token always stays
        ordered, order = logits.sort(dim=-1)
        remove = ordered.softmax(dim=-1).cumsum(dim=-1) <= 1 - top_p
        remove[..., -1] = False
        logits = logits.masked_fill(remove.scatter(-1, order, remove), float("-inf"))
    return logits


def top_p_of_top_k(logits, values, indices, top_p):
    """warp's top-p after its top-k, without sorting the vocabulary: logits (..., vocab) with top-k's
    removed tokens at -inf; values, indices: top-k's (descending, ties by index). The kept tokens are
    the candidates and the other ties at the k-th value (kth); in ascending order (ties by index), the
    ties at kth come first (each with kth's probability, so a tie's cumulative probability is its rank
    among them times that), then the candidates above kth, whose cumulative probability is every tie's
    plus that of the candidates before it. A token goes when that is at most 1 - top_p; the last one
    (the largest value's last index) stays. The same set as the sort's, within float rounding."""
    kth = values[..., -1:]
    p = logits.softmax(dim=-1).gather(-1, indices)  # the candidates' probabilities
    ties = logits == kth
    rank = ties.float().cumsum(dim=-1)  # counts in float32 (exact to 2**24): int64 sums may be checked on the host
    n_ties = rank[..., -1:]
    last_tie = (rank == n_ties) & (values[..., :1] == kth)  # the last token when every kept one ties
    remove = ties & (rank * p[..., -1:] <= 1 - top_p) & ~last_tie
    above = values > kth
    before = (values[..., None, :] < values[..., :, None]) | \
        ((values[..., None, :] == values[..., :, None]) & (indices[..., None, :] <= indices[..., :, None]))
    mass = ((before & above[..., None, :]) * p[..., None, :]).sum(dim=-1) + n_ties * p[..., -1:]
    top = torch.where(values == values[..., :1], indices, -1).amax(dim=-1, keepdim=True)
    remove = remove | torch.zeros_like(remove).scatter(-1, indices, above & (mass <= 1 - top_p) & (indices != top))
    return logits.masked_fill(remove, float("-inf"))


class Sampler:
    """pick(logits (batch, vocab)) -> (batch,) int64 token ids, on the logits' device."""

    def __init__(self, do_sample=False, temperature=1.0, top_k=None, top_p=None, generator=None):
        if do_sample and not temperature > 0:
            raise ValueError(f"`temperature` (={temperature}) has to be a strictly positive float when sampling")
        if top_p is not None and not 0 <= top_p <= 1:
            raise ValueError(f"`top_p` has to be a float in [0, 1], but is {top_p}")
        self.do_sample, self.temperature, self.top_k, self.top_p = do_sample, temperature, top_k, top_p
        self.generator = generator

    def __call__(self, logits, uniform=None):
        """uniform: the draws in [0, 1) to use, logits' shape (a captured decode step takes them as an
        argument: a replay does not draw); drawn here with the generator when None."""
        if not self.do_sample:  # float16 logits' own argmax: widening is exact and keeps their order (a kernel less)
            return logits.argmax(dim=-1)
        logits = logits.float()
        logits = warp(logits, self.temperature, self.top_k, self.top_p)
        if uniform is None:
            uniform = self.uniform(logits.shape, logits.device)
        return (logits - torch.log(-torch.log(uniform))).argmax(dim=-1)

    def uniform(self, shape, device):
        """The draws one pick takes (None when greedy)."""
        return torch.rand(shape, device=device, generator=self.generator) if self.do_sample else None
