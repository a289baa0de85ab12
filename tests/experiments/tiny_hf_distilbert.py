#!/usr/bin/python3
"""Writes a random DistilBERT in Hugging Face's model-folder layout, and a reference forward pass.

Usage: tiny_hf_distilbert.py OUT_DIR [--sinusoidal] [--base] [--no-heads]

OUT_DIR receives what tiny_hf_bert.py writes (config.json, vocab.txt, model.safetensors, pytorch_model.bin,
reference.safetensors), for DistilBERT:
  config.json   HF DistilBertConfig fields (transformers/models/distilbert/configuration_distilbert.py: dim,
                n_layers, n_heads, hidden_dim, dropout, attention_dropout, activation, sinusoidal_pos_embds,
                qa_dropout, seq_classif_dropout, initializer_range); model_type "distilbert"
  sizes         2 layers, dim 128, 2 heads, hidden_dim 512 by default; with --base the sizes of
                distilbert-base (6 layers, dim 768, 12 heads, hidden_dim 3072, jetchar's `distilbert` preset)
                with the same 1200-token vocabulary and 64 positions
  --sinusoidal  sinusoidal_pos_embds true: the position table is HF's create_sinusoidal_embeddings
                (position / 10000^(2*(j//2)/dim), sin on even columns, cos on odd ones)
  --no-heads    a pretraining checkpoint as distilbert-base-uncased is published: the encoder and the
                masked-LM head, no task heads and no id2label, and no reference outputs

The parameter names are HF's (modeling_distilbert.py: DistilBertModel is `distilbert` inside every task model,
Embeddings with word_embeddings, position_embeddings and LayerNorm; Transformer.layer.N with
attention.{q_lin,k_lin,v_lin,out_lin}, sa_layer_norm, ffn.{lin1,lin2}, output_layer_norm; the heads
`pre_classifier` + `classifier` (sequence classification), `classifier` (token classification) and `qa_outputs`;
the masked-LM head vocab_transform, vocab_layer_norm, vocab_projector, which fine-tuning does not use). The
reference forward below is plain PyTorch following DistilBertModel.forward's math (word + position embeddings
-> LayerNorm(eps 1e-12); per TransformerBlock: attention with q scaled by 1/sqrt(head size) and masked keys
filled with finfo.min, out_lin + residual + sa_layer_norm, lin1 -> GELU(erf) -> lin2 + residual +
output_layer_norm), and the heads' (ReLU(pre_classifier(h[CLS])) -> classifier), written here because
`transformers` is not installed.
"""
import json
import math
import sys

import torch

from tiny_hf_bert import LABELS, reference_inputs, write_safetensors, write_vocab

VOCAB, POSITIONS = 1200, 64
EPS = 1e-12  # DistilBERT's LayerNorms hard-code eps=1e-12; the config has no field for it


def sizes(base):
    # (dim, n_layers, n_heads, hidden_dim)
    return (768, 6, 12, 3072) if base else (128, 2, 2, 512)


def sinusoidal_table(positions, dim):
    table = torch.zeros(positions, dim, dtype=torch.float64)
    for pos in range(positions):
        for j in range(dim):
            angle = pos / math.pow(10000, 2 * (j // 2) / dim)
            table[pos, j] = math.sin(angle) if j % 2 == 0 else math.cos(angle)
    return table.float()


def make_state_dict(base, sinusoidal):
    dim, layers, _, hidden_dim = sizes(base)
    g = torch.Generator().manual_seed(23)
    # Wider layers sum more terms: the weights shrink with the width so activations stay of order one.
    scale = math.sqrt(128 / dim)

    def randn(*shape, std=0.2):
        return torch.randn(*shape, generator=g) * std

    sd = {}
    e = "distilbert.embeddings."
    sd[e + "word_embeddings.weight"] = randn(VOCAB, dim, std=0.5)
    sd[e + "position_embeddings.weight"] = (sinusoidal_table(POSITIONS, dim) if sinusoidal
                                            else randn(POSITIONS, dim, std=0.5))
    sd[e + "LayerNorm.weight"] = 1 + randn(dim, std=0.1)
    sd[e + "LayerNorm.bias"] = randn(dim, std=0.1)
    # A buffer older HF versions save (newer ones register it persistent=False); it is not a parameter.
    sd[e + "position_ids"] = torch.arange(POSITIONS).unsqueeze(0)
    for i in range(layers):
        p = f"distilbert.transformer.layer.{i}."
        for name in ("q_lin", "k_lin", "v_lin", "out_lin"):
            sd[p + f"attention.{name}.weight"] = randn(dim, dim, std=0.2 * scale)
            sd[p + f"attention.{name}.bias"] = randn(dim, std=0.1)
        sd[p + "sa_layer_norm.weight"] = 1 + randn(dim, std=0.1)
        sd[p + "sa_layer_norm.bias"] = randn(dim, std=0.1)
        sd[p + "ffn.lin1.weight"] = randn(hidden_dim, dim, std=0.1 * scale)
        sd[p + "ffn.lin1.bias"] = randn(hidden_dim, std=0.1)
        sd[p + "ffn.lin2.weight"] = randn(dim, hidden_dim, std=0.1 * scale)
        sd[p + "ffn.lin2.bias"] = randn(dim, std=0.1)
        sd[p + "output_layer_norm.weight"] = 1 + randn(dim, std=0.1)
        sd[p + "output_layer_norm.bias"] = randn(dim, std=0.1)
    sd["pre_classifier.weight"] = randn(dim, dim, std=0.2 * scale)
    sd["pre_classifier.bias"] = randn(dim, std=0.1)
    sd["classifier.weight"] = randn(len(LABELS), dim, std=0.2 * scale)
    sd["classifier.bias"] = randn(len(LABELS), std=0.1)
    sd["qa_outputs.weight"] = randn(2, dim, std=0.2 * scale)
    sd["qa_outputs.bias"] = randn(2, std=0.1)
    sd["vocab_transform.weight"] = randn(dim, dim, std=0.02)
    sd["vocab_transform.bias"] = randn(dim, std=0.02)
    sd["vocab_layer_norm.weight"] = 1 + randn(dim, std=0.1)
    sd["vocab_layer_norm.bias"] = randn(dim, std=0.1)
    sd["vocab_projector.weight"] = sd[e + "word_embeddings.weight"]  # tied to the word embeddings, as HF saves it
    sd["vocab_projector.bias"] = randn(VOCAB, std=0.1)
    return sd


def reference_forward(sd, ids, mask, base):
    """DistilBertModel.forward in eval mode (no dropout), then the three task heads."""
    dim, layers, heads, _ = sizes(base)
    ln = torch.nn.functional.layer_norm
    length = ids.shape[1]
    e = "distilbert.embeddings."
    x = sd[e + "word_embeddings.weight"][ids] + sd[e + "position_embeddings.weight"][torch.arange(length)]
    x = ln(x, (dim,), sd[e + "LayerNorm.weight"], sd[e + "LayerNorm.bias"], EPS)
    head = dim // heads
    masked = (mask == 0)[:, None, None, :]

    def linear(t, name):
        return t @ sd[name + ".weight"].T + sd[name + ".bias"]

    def split(t):
        return t.view(t.shape[0], length, heads, head).transpose(1, 2)

    for i in range(layers):
        p = f"distilbert.transformer.layer.{i}."
        q = split(linear(x, p + "attention.q_lin")) / math.sqrt(head)
        k = split(linear(x, p + "attention.k_lin"))
        v = split(linear(x, p + "attention.v_lin"))
        scores = (q @ k.transpose(2, 3)).masked_fill(masked, torch.finfo(torch.float32).min)
        context = (torch.softmax(scores, -1) @ v).transpose(1, 2).reshape(x.shape)
        a = ln(linear(context, p + "attention.out_lin") + x, (dim,), sd[p + "sa_layer_norm.weight"],
               sd[p + "sa_layer_norm.bias"], EPS)
        f = linear(torch.nn.functional.gelu(linear(a, p + "ffn.lin1")), p + "ffn.lin2")
        x = ln(f + a, (dim,), sd[p + "output_layer_norm.weight"], sd[p + "output_layer_norm.bias"], EPS)
    pooled = torch.relu(linear(x[:, 0], "pre_classifier"))
    return {
        "hidden": x,
        "token_logits": linear(x, "classifier"),
        "qa_logits": linear(x, "qa_outputs"),
        "sequence_logits": linear(pooled, "classifier"),
    }


def main():
    out = sys.argv[1]
    base = "--base" in sys.argv[2:]
    sinusoidal = "--sinusoidal" in sys.argv[2:]
    no_heads = "--no-heads" in sys.argv[2:]
    dim, layers, heads, hidden_dim = sizes(base)
    config = {
        "architectures": ["DistilBertForMaskedLM" if no_heads else "DistilBertForTokenClassification"],
        "model_type": "distilbert", "vocab_size": VOCAB,
        "dim": dim, "n_layers": layers, "n_heads": heads, "hidden_dim": hidden_dim, "activation": "gelu",
        "dropout": 0.1, "attention_dropout": 0.1, "max_position_embeddings": POSITIONS,
        "sinusoidal_pos_embds": sinusoidal, "initializer_range": 0.02, "qa_dropout": 0.1,
        "seq_classif_dropout": 0.2, "pad_token_id": 0,
        "id2label": {str(i): label for i, label in enumerate(LABELS)},
        "label2id": {label: i for i, label in enumerate(LABELS)},
    }
    if no_heads:
        del config["id2label"], config["label2id"]
    with open(f"{out}/config.json", "w") as f:
        json.dump(config, f, indent=2)
    write_vocab(out, VOCAB)
    sd = make_state_dict(base, sinusoidal)
    if no_heads:
        sd = {k: v for k, v in sd.items() if not k.startswith(("pre_classifier.", "classifier.", "qa_outputs."))}
    # safetensors refuses tensors that share memory (HF drops the tied copy when it saves); torch.save keeps both.
    write_safetensors(f"{out}/model.safetensors", {k: v.clone() for k, v in sd.items()})
    torch.save(sd, f"{out}/pytorch_model.bin")
    if no_heads:
        return

    ids, mask, _ = reference_inputs(VOCAB)
    with torch.no_grad():
        outputs = reference_forward(sd, ids, mask, base)
    write_safetensors(f"{out}/reference.safetensors", {"input_ids": ids, "attention_mask": mask, **outputs})


if __name__ == "__main__":
    main()
