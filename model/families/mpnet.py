"""MPNet (all-mpnet-base-v2): positions after the padding index as RoBERTa, a relative position bias
computed once and added in every layer, no token types. transformers has eager attention only for it:
scores written out at [B, heads, L, L], scaled, the bias and the mask added, a softmax, each a pass over
them. `sdpa_swap` runs the same arithmetic through torch's scaled_dot_product_attention, with the bias
and the mask added together once for all layers (one float mask), so that the attention is one fused
kernel per layer; the exporter traces the library's modules under it and checks the trace against the
library's own eager modules as for every export."""
import contextlib

from . import Family


@contextlib.contextmanager
def sdpa_swap():
    """While open, MPNet's encoder adds its mask to the position bias once, and each layer's attention
    is torch's sdpa with that sum as its float mask (scale 1/sqrt(head size), the library's)."""
    import torch.nn.functional as F
    from transformers.models.mpnet import modeling_mpnet as m

    encoder_forward, attention_forward = m.MPNetEncoder.forward, m.MPNetSelfAttention.forward

    def encoder(self, hidden_states, attention_mask=None, *args, **kwargs):
        bias = self.compute_position_bias(hidden_states)
        if attention_mask is not None:
            bias = bias + attention_mask  # the eager model's additive [B, 1, 1, L] mask
        shared = [bias]  # the layers' one mask, which the first layer casts
        self.compute_position_bias = lambda *_args, **_kwargs: shared
        try:
            return encoder_forward(self, hidden_states, None, *args, **kwargs)
        finally:
            del self.compute_position_bias

    def attention(self, hidden_states, attention_mask=None, position_bias=None, output_attentions=False,
                  **kwargs):
        if output_attentions:
            raise ValueError("sdpa_swap returns no attention probabilities")
        shape = (*hidden_states.shape[:-1], -1, self.attention_head_size)
        q, k, v = (proj(hidden_states).view(shape).transpose(1, 2) for proj in (self.q, self.k, self.v))
        if isinstance(position_bias, list):
            # In the queries' type once for all layers (bfloat16 under autocast), so that autocast does not
            # cast the [B, heads, L, L] mask again in every layer: type_as follows the run's type.
            position_bias[0] = position_bias[0].type_as(q)
            position_bias = position_bias[0]
        c = F.scaled_dot_product_attention(q, k, v, attn_mask=position_bias)
        return (self.o(c.transpose(1, 2).reshape(*hidden_states.shape[:-1], self.all_head_size)),)

    m.MPNetEncoder.forward, m.MPNetSelfAttention.forward = encoder, attention
    try:
        yield
    finally:
        m.MPNetEncoder.forward, m.MPNetSelfAttention.forward = encoder_forward, attention_forward


FAMILIES = [Family("mpnet", positions_after_padding=True, attention=("sdpa", "eager"), sdpa_swap=sdpa_swap,
                   note="relative position bias; positions after the padding index; the library's eager "
                        "attention traced through sdpa, bias and mask added once")]
