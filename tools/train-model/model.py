"""Llama-architecture causal LM, written out so the math is explicit.

Matches Hugging Face LlamaForCausalLM (no biases, RMSNorm, HF-convention RoPE
with rotate_half, grouped-query attention, SwiGLU MLP, tied embeddings).
Parameter names equal the HF names with the "model." prefix dropped.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class RMSNorm(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate_half(x):
    d = x.shape[-1] // 2
    return torch.cat((-x[..., d:], x[..., :d]), dim=-1)


def rope_cos_sin(position_ids, head_dim, theta):
    inv_freq = 1.0 / (theta ** (torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim))
    freqs = position_ids[..., None].float() * inv_freq  # [..., S, D/2]
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos(), emb.sin()


class Attention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.nh, self.nkv, self.d = c["num_attention_heads"], c["num_key_value_heads"], c["head_dim"]
        h = c["hidden_size"]
        self.q_proj = nn.Linear(h, self.nh * self.d, bias=False)
        self.k_proj = nn.Linear(h, self.nkv * self.d, bias=False)
        self.v_proj = nn.Linear(h, self.nkv * self.d, bias=False)
        self.o_proj = nn.Linear(self.nh * self.d, h, bias=False)

    def forward(self, x, cos, sin, mask):
        b, s, _ = x.shape
        q = self.q_proj(x).view(b, s, self.nh, self.d).transpose(1, 2)
        k = self.k_proj(x).view(b, s, self.nkv, self.d).transpose(1, 2)
        v = self.v_proj(x).view(b, s, self.nkv, self.d).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        rep = self.nh // self.nkv  # query head i uses kv head i // rep
        k = k.repeat_interleave(rep, dim=1)
        v = v.repeat_interleave(rep, dim=1)
        # (q / sqrt(D)) @ k^T == q @ k^T / sqrt(D); scaling q is cheaper than scaling S x S scores
        att = (q * (1.0 / math.sqrt(self.d))) @ k.transpose(-1, -2) + mask
        att = att.softmax(dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, s, self.nh * self.d)
        return self.o_proj(y)


class MLP(nn.Module):
    def __init__(self, c):
        super().__init__()
        h, i = c["hidden_size"], c["intermediate_size"]
        self.gate_proj = nn.Linear(h, i, bias=False)
        self.up_proj = nn.Linear(h, i, bias=False)
        self.down_proj = nn.Linear(i, h, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class Layer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.input_layernorm = RMSNorm(c["hidden_size"], c["rms_norm_eps"])
        self.self_attn = Attention(c)
        self.post_attention_layernorm = RMSNorm(c["hidden_size"], c["rms_norm_eps"])
        self.mlp = MLP(c)

    def forward(self, x, cos, sin, mask):
        x = x + self.self_attn(self.input_layernorm(x), cos, sin, mask)
        return x + self.mlp(self.post_attention_layernorm(x))


class Llama(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c = c
        self.embed_tokens = nn.Embedding(c["vocab_size"], c["hidden_size"])
        self.layers = nn.ModuleList(Layer(c) for _ in range(c["num_hidden_layers"]))
        self.norm = RMSNorm(c["hidden_size"], c["rms_norm_eps"])

    def init_weights(self, std=0.02):
        resid_std = std / math.sqrt(2 * self.c["num_hidden_layers"])
        for name, p in self.named_parameters():
            if p.dim() == 2:
                s = resid_std if name.endswith(("o_proj.weight", "down_proj.weight")) else std
                nn.init.normal_(p, mean=0.0, std=s)

    def forward(self, ids, position_ids=None):
        b, s = ids.shape
        if position_ids is None:
            position_ids = torch.arange(s).unsqueeze(0)
        cos, sin = rope_cos_sin(position_ids, self.c["head_dim"], self.c["rope_theta"])
        cos, sin = cos[:, None], sin[:, None]  # broadcast over heads
        mask = torch.full((s, s), float("-inf")).triu(1)
        x = self.embed_tokens(ids)
        for layer in self.layers:
            x = layer(x, cos, sin, mask)
        x = self.norm(x)
        return x @ self.embed_tokens.weight.t()  # tied LM head


def n_params(model):
    return sum(p.numel() for p in model.parameters())
