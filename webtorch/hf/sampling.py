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
        kth = logits.topk(top_k, dim=-1).values[..., -1:]
        logits = logits.masked_fill(logits < kth, float("-inf"))
    if top_p is not None and top_p < 1.0:
        # ascending order: a token goes when the probability of it and every less likely token is at
        # most 1 - top_p; the most likely token always stays
        ordered, order = logits.sort(dim=-1)
        remove = ordered.softmax(dim=-1).cumsum(dim=-1) <= 1 - top_p
        remove[..., -1] = False
        logits = logits.masked_fill(remove.scatter(-1, order, remove), float("-inf"))
    return logits


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
        logits = logits.float()
        if not self.do_sample:
            return logits.argmax(dim=-1)
        logits = warp(logits, self.temperature, self.top_k, self.top_p)
        if uniform is None:
            uniform = self.uniform(logits.shape, logits.device)
        return (logits - torch.log(-torch.log(uniform))).argmax(dim=-1)

    def uniform(self, shape, device):
        """The draws one pick takes (None when greedy)."""
        return torch.rand(shape, device=device, generator=self.generator) if self.do_sample else None
