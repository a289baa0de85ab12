#!/usr/bin/python3
"""Writes a random ELECTRA discriminator in Hugging Face's model-folder layout, and a reference forward pass.

Usage: tiny_hf_electra.py OUT_DIR [--bare]

OUT_DIR receives
  config.json            HF ElectraConfig fields (configuration_electra.py) with electra-small's sizes
                         (embedding_size 128, hidden 256, 12 layers, 4 heads, intermediate 1024) and a
                         1200-token vocabulary, so that embeddings_project is exercised
  vocab.txt              [PAD] [UNK] [CLS] [SEP] [MASK] and filler word pieces
  model.safetensors      the weights (tiny_hf_bert.py's writer)
  pytorch_model.bin      the same weights through torch.save
  reference.safetensors  inputs and the reference outputs (hidden states, discriminator, QA and token logits)

The names are HF's (transformers/models/electra/modeling_electra.py): ElectraModel `electra` (ElectraEmbeddings
with tables of width embedding_size, `embeddings_project` to the hidden size, the BERT encoder layers, no pooler),
ElectraForPreTraining's `discriminator_predictions` (dense, the config's activation, dense_prediction),
ElectraForQuestionAnswering's `qa_outputs` and ElectraForTokenClassification's `classifier`. With --bare the
folder holds a bare ElectraModel: names without the `electra.` prefix and no heads. The reference forward is plain
PyTorch following ElectraModel.forward's math (the embeddings and encoder layers tiny_hf_bert.py's), written here because `transformers` is not installed.
"""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tiny_hf_bert import embeddings, encoder_layers, reference_inputs, write_safetensors, write_vocab  # noqa: E402

EMBEDDING, HIDDEN, LAYERS, HEADS, INTERMEDIATE = 128, 256, 12, 4, 1024
VOCAB, POSITIONS, TYPES, LABELS = 1200, 64, 2, 9
EPS = 1e-12


def make_state_dict():
    g = torch.Generator().manual_seed(23)

    def randn(*shape, std=0.05):
        return torch.randn(*shape, generator=g) * std

    sd = {}
    e = "electra.embeddings."
    sd[e + "word_embeddings.weight"] = randn(VOCAB, EMBEDDING, std=0.5)
    sd[e + "position_embeddings.weight"] = randn(POSITIONS, EMBEDDING, std=0.5)
    sd[e + "token_type_embeddings.weight"] = randn(TYPES, EMBEDDING, std=0.5)
    sd[e + "LayerNorm.weight"] = 1 + randn(EMBEDDING, std=0.1)
    sd[e + "LayerNorm.bias"] = randn(EMBEDDING, std=0.1)
    sd[e + "position_ids"] = torch.arange(POSITIONS).unsqueeze(0)
    sd["electra.embeddings_project.weight"] = randn(HIDDEN, EMBEDDING, std=0.1)
    sd["electra.embeddings_project.bias"] = randn(HIDDEN, std=0.1)
    for i in range(LAYERS):
        p = f"electra.encoder.layer.{i}."
        for name in ("query", "key", "value"):
            sd[p + f"attention.self.{name}.weight"] = randn(HIDDEN, HIDDEN)
            sd[p + f"attention.self.{name}.bias"] = randn(HIDDEN, std=0.1)
        sd[p + "attention.output.dense.weight"] = randn(HIDDEN, HIDDEN)
        sd[p + "attention.output.dense.bias"] = randn(HIDDEN, std=0.1)
        sd[p + "attention.output.LayerNorm.weight"] = 1 + randn(HIDDEN, std=0.1)
        sd[p + "attention.output.LayerNorm.bias"] = randn(HIDDEN, std=0.1)
        sd[p + "intermediate.dense.weight"] = randn(INTERMEDIATE, HIDDEN)
        sd[p + "intermediate.dense.bias"] = randn(INTERMEDIATE, std=0.1)
        sd[p + "output.dense.weight"] = randn(HIDDEN, INTERMEDIATE)
        sd[p + "output.dense.bias"] = randn(HIDDEN, std=0.1)
        sd[p + "output.LayerNorm.weight"] = 1 + randn(HIDDEN, std=0.1)
        sd[p + "output.LayerNorm.bias"] = randn(HIDDEN, std=0.1)
    sd["discriminator_predictions.dense.weight"] = randn(HIDDEN, HIDDEN)
    sd["discriminator_predictions.dense.bias"] = randn(HIDDEN, std=0.1)
    sd["discriminator_predictions.dense_prediction.weight"] = randn(1, HIDDEN, std=0.2)
    sd["discriminator_predictions.dense_prediction.bias"] = randn(1, std=0.1)
    sd["qa_outputs.weight"] = randn(2, HIDDEN, std=0.2)
    sd["qa_outputs.bias"] = randn(2, std=0.1)
    sd["classifier.weight"] = randn(LABELS, HIDDEN, std=0.2)
    sd["classifier.bias"] = randn(LABELS, std=0.1)
    return sd


def reference_forward(sd, ids, mask, types):
    """ElectraModel.forward in eval mode (no dropout), then the three heads."""
    gelu = torch.nn.functional.gelu
    x = embeddings(sd, "electra.embeddings.", ids, types, EPS)

    def linear(t, name):
        return t @ sd[name + ".weight"].T + sd[name + ".bias"]

    x = linear(x, "electra.embeddings_project")
    x = encoder_layers(sd, "electra.encoder.layer.", x, mask, HEADS, LAYERS, EPS)
    discriminator = linear(gelu(linear(x, "discriminator_predictions.dense")),
                           "discriminator_predictions.dense_prediction").squeeze(-1)
    return {
        "hidden": x,
        "discriminator_logits": discriminator,
        "qa_logits": linear(x, "qa_outputs"),
        "token_logits": linear(x, "classifier"),
    }


def main():
    out = sys.argv[1]
    bare = "--bare" in sys.argv[2:]
    config = {
        "architectures": ["ElectraModel" if bare else "ElectraForPreTraining"], "model_type": "electra",
        "vocab_size": VOCAB, "embedding_size": EMBEDDING, "hidden_size": HIDDEN, "num_hidden_layers": LAYERS,
        "num_attention_heads": HEADS, "intermediate_size": INTERMEDIATE, "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1, "max_position_embeddings": POSITIONS,
        "type_vocab_size": TYPES, "initializer_range": 0.02, "layer_norm_eps": EPS, "pad_token_id": 0,
        "position_embedding_type": "absolute", "summary_type": "first", "summary_use_proj": True,
        "summary_activation": "gelu", "summary_last_dropout": 0.1,
    }
    with open(f"{out}/config.json", "w") as f:
        json.dump(config, f, indent=2)
    write_vocab(out, VOCAB)
    sd = make_state_dict()
    saved = sd
    if bare:
        saved = {k[len("electra."):]: v for k, v in sd.items() if k.startswith("electra.")}
    write_safetensors(f"{out}/model.safetensors", saved)
    torch.save(saved, f"{out}/pytorch_model.bin")

    ids, mask, types = reference_inputs(VOCAB)
    with torch.no_grad():
        outputs = reference_forward(sd, ids, mask, types)
    write_safetensors(f"{out}/reference.safetensors",
                      {"input_ids": ids, "attention_mask": mask, "token_type_ids": types, **outputs})


if __name__ == "__main__":
    main()
