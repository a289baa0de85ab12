#!/usr/bin/python3
"""Writes a tiny random BERT in Hugging Face's model-folder layout, and a reference forward pass.

Usage: tiny_hf_bert.py OUT_DIR

OUT_DIR receives
  config.json         HF BertConfig fields (configuration_bert.py), sizes of jetchar's bert-tiny preset
                      (2 layers, hidden 128, 2 heads, intermediate 512) with a 1200-token vocabulary
  vocab.txt           [PAD] [UNK] [CLS] [SEP] [MASK] and filler word pieces, one per line
  model.safetensors   the weights, written by hand after the safetensors format (huggingface/safetensors
                      README, "Format": u64 little-endian header size, JSON header {name: {dtype, shape,
                      data_offsets}}, "__metadata__", then the little-endian data, no holes)
  pytorch_model.bin   the same weights through torch.save (the zip format torch >= 1.6 writes)
  reference.safetensors  inputs and the reference outputs (hidden states, token/QA/sequence/masked-LM logits)

The parameter names are HF's (transformers/models/bert/modeling_bert.py: BertEmbeddings, BertSelfAttention,
BertSelfOutput, BertIntermediate, BertOutput, BertPooler; the task heads `classifier` and `qa_outputs`;
BertForPreTraining's heads `cls.predictions` (BertLMPredictionHead, which the masked-LM models use and
fine-tuning does not) and `cls.seq_relationship`). The reference forward below is
plain PyTorch following BertModel.forward's math (embeddings sum -> LayerNorm; per layer: scaled dot-product
attention with the additive mask, dense + residual + LayerNorm, GELU(erf) feed-forward + residual +
LayerNorm; pooler tanh(dense(h[CLS])); the masked-LM head), written here because `transformers` is not installed.
"""
import json
import math
import struct
import sys

import torch

HIDDEN, LAYERS, HEADS, INTERMEDIATE = 128, 2, 2, 512
VOCAB, POSITIONS, TYPES = 1200, 64, 2
# CoNLL-2003's NER labels in HF's order, so the token-classification head fits that data set.
LABELS = ["O", "B-PER", "I-PER", "B-ORG", "I-ORG", "B-LOC", "I-LOC", "B-MISC", "I-MISC"]
EPS = 1e-12


def make_state_dict():
    g = torch.Generator().manual_seed(19)

    def randn(*shape, std=0.2):
        return torch.randn(*shape, generator=g) * std

    sd = {}
    e = "bert.embeddings."
    sd[e + "word_embeddings.weight"] = randn(VOCAB, HIDDEN, std=0.5)
    sd[e + "position_embeddings.weight"] = randn(POSITIONS, HIDDEN, std=0.5)
    sd[e + "token_type_embeddings.weight"] = randn(TYPES, HIDDEN, std=0.5)
    sd[e + "LayerNorm.weight"] = 1 + randn(HIDDEN, std=0.1)
    sd[e + "LayerNorm.bias"] = randn(HIDDEN, std=0.1)
    # A buffer older HF versions save; it is not a parameter.
    sd[e + "position_ids"] = torch.arange(POSITIONS).unsqueeze(0)
    for i in range(LAYERS):
        p = f"bert.encoder.layer.{i}."
        for name in ("query", "key", "value"):
            sd[p + f"attention.self.{name}.weight"] = randn(HIDDEN, HIDDEN)
            sd[p + f"attention.self.{name}.bias"] = randn(HIDDEN, std=0.1)
        sd[p + "attention.output.dense.weight"] = randn(HIDDEN, HIDDEN)
        sd[p + "attention.output.dense.bias"] = randn(HIDDEN, std=0.1)
        sd[p + "attention.output.LayerNorm.weight"] = 1 + randn(HIDDEN, std=0.1)
        sd[p + "attention.output.LayerNorm.bias"] = randn(HIDDEN, std=0.1)
        sd[p + "intermediate.dense.weight"] = randn(INTERMEDIATE, HIDDEN, std=0.1)
        sd[p + "intermediate.dense.bias"] = randn(INTERMEDIATE, std=0.1)
        sd[p + "output.dense.weight"] = randn(HIDDEN, INTERMEDIATE, std=0.1)
        sd[p + "output.dense.bias"] = randn(HIDDEN, std=0.1)
        sd[p + "output.LayerNorm.weight"] = 1 + randn(HIDDEN, std=0.1)
        sd[p + "output.LayerNorm.bias"] = randn(HIDDEN, std=0.1)
    sd["bert.pooler.dense.weight"] = randn(HIDDEN, HIDDEN)
    sd["bert.pooler.dense.bias"] = randn(HIDDEN, std=0.1)
    sd["classifier.weight"] = randn(len(LABELS), HIDDEN)
    sd["classifier.bias"] = randn(len(LABELS), std=0.1)
    sd["qa_outputs.weight"] = randn(2, HIDDEN)
    sd["qa_outputs.bias"] = randn(2, std=0.1)
    # BertForPreTraining's heads: BertLMPredictionHead (transform, LayerNorm, the decoder tied to the
    # word embeddings and to cls.predictions.bias: the same tensors, as HF's tie_weights makes them) and
    # the next-sentence head, which no jetchar model uses.
    sd["cls.predictions.transform.dense.weight"] = randn(HIDDEN, HIDDEN)
    sd["cls.predictions.transform.dense.bias"] = randn(HIDDEN, std=0.1)
    sd["cls.predictions.transform.LayerNorm.weight"] = 1 + randn(HIDDEN, std=0.1)
    sd["cls.predictions.transform.LayerNorm.bias"] = randn(HIDDEN, std=0.1)
    sd["cls.predictions.bias"] = randn(VOCAB, std=0.1)
    sd["cls.predictions.decoder.weight"] = sd[e + "word_embeddings.weight"]
    sd["cls.predictions.decoder.bias"] = sd["cls.predictions.bias"]
    sd["cls.seq_relationship.weight"] = randn(2, HIDDEN)
    sd["cls.seq_relationship.bias"] = randn(2, std=0.1)
    return sd


# Tensors HF's save_pretrained leaves out of model.safetensors because they share memory with
# another it keeps (BertForPreTraining._tied_weights_keys); torch.save keeps them, sharing storage.
TIED = ("cls.predictions.decoder.weight", "cls.predictions.decoder.bias")


def embeddings(sd, prefix, ids, types, eps):
    """BertEmbeddings (ElectraEmbeddings too) in eval mode: word + position + token type, LayerNorm."""
    e = prefix
    x = (sd[e + "word_embeddings.weight"][ids] + sd[e + "position_embeddings.weight"][torch.arange(ids.shape[1])]
         + sd[e + "token_type_embeddings.weight"][types])
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), sd[e + "LayerNorm.weight"], sd[e + "LayerNorm.bias"], eps)


def encoder_layers(sd, prefix, x, mask, heads, layers, eps):
    """BertEncoder in eval mode on x [B, L, H] (ElectraModel's too): per layer `prefix`N., scaled
    dot-product attention with the additive mask, dense + residual + LayerNorm, GELU(erf)
    feed-forward + residual + LayerNorm."""
    ln = torch.nn.functional.layer_norm
    batch, length, hidden = x.shape
    # get_extended_attention_mask: (1 - mask) * finfo(dtype).min, broadcast over heads and queries.
    bias = (1.0 - mask[:, None, None, :].float()) * torch.finfo(torch.float32).min
    head = hidden // heads

    def linear(t, name):
        return t @ sd[name + ".weight"].T + sd[name + ".bias"]

    def split(t):
        return t.view(batch, length, heads, head).transpose(1, 2)

    for i in range(layers):
        p = f"{prefix}{i}."
        q = split(linear(x, p + "attention.self.query"))
        k = split(linear(x, p + "attention.self.key"))
        v = split(linear(x, p + "attention.self.value"))
        scores = q @ k.transpose(-1, -2) / math.sqrt(head) + bias
        context = (torch.softmax(scores, -1) @ v).transpose(1, 2).reshape(x.shape)
        a = ln(linear(context, p + "attention.output.dense") + x, (hidden,),
               sd[p + "attention.output.LayerNorm.weight"], sd[p + "attention.output.LayerNorm.bias"], eps)
        f = linear(torch.nn.functional.gelu(linear(a, p + "intermediate.dense")), p + "output.dense")
        x = ln(f + a, (hidden,), sd[p + "output.LayerNorm.weight"], sd[p + "output.LayerNorm.bias"], eps)
    return x


def reference_forward(sd, ids, mask, types):
    """BertModel.forward in eval mode (no dropout), then the three task heads."""
    ln = torch.nn.functional.layer_norm
    x = embeddings(sd, "bert.embeddings.", ids, types, EPS)

    def linear(t, name):
        return t @ sd[name + ".weight"].T + sd[name + ".bias"]

    x = encoder_layers(sd, "bert.encoder.layer.", x, mask, HEADS, LAYERS, EPS)
    pooled = torch.tanh(linear(x[:, 0], "bert.pooler.dense"))
    # BertLMPredictionHead: dense -> GELU(erf) -> LayerNorm, then the tied decoder.
    t = torch.nn.functional.gelu(linear(x, "cls.predictions.transform.dense"))
    t = ln(t, (HIDDEN,), sd["cls.predictions.transform.LayerNorm.weight"],
           sd["cls.predictions.transform.LayerNorm.bias"], EPS)
    return {
        "mlm_logits": linear(t, "cls.predictions.decoder"),
        "hidden": x,
        "token_logits": linear(x, "classifier"),
        "qa_logits": linear(x, "qa_outputs"),
        "sequence_logits": linear(pooled, "classifier"),
    }


DTYPES = {torch.float32: "F32", torch.int64: "I64", torch.float16: "F16"}


def write_safetensors(path, tensors):
    header, blobs, offset = {"__metadata__": {"format": "pt"}}, [], 0
    for name, t in tensors.items():
        data = t.contiguous().numpy().astype(t.numpy().dtype.newbyteorder("<")).tobytes()
        header[name] = {"dtype": DTYPES[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)  # the format allows trailing spaces; 8-byte alignment as the writer does
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)


def write_vocab(out, size):
    """vocab.txt of `size` pieces: the special tokens, then filler words w0, w1, ..."""
    with open(f"{out}/vocab.txt", "w") as f:
        words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
        words += [f"w{i}" for i in range(size - len(words))]
        f.write("\n".join(words) + "\n")


def reference_inputs(vocab):
    """The reference forward's batch: two sequences of 12, [CLS] first, the second padded after 8, two segments."""
    g = torch.Generator().manual_seed(7)
    ids = torch.randint(5, vocab, (2, 12), generator=g)
    ids[:, 0] = 2
    mask = torch.ones(2, 12, dtype=torch.int64)
    mask[1, 8:] = 0
    ids[1, 8:] = 0
    types = torch.zeros(2, 12, dtype=torch.int64)
    types[:, 6:] = 1
    return ids, mask, types


def main():
    out = sys.argv[1]
    config = {
        "architectures": ["BertForTokenClassification"], "model_type": "bert", "vocab_size": VOCAB,
        "hidden_size": HIDDEN, "num_hidden_layers": LAYERS, "num_attention_heads": HEADS,
        "intermediate_size": INTERMEDIATE, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
        "attention_probs_dropout_prob": 0.1, "max_position_embeddings": POSITIONS, "type_vocab_size": TYPES,
        "initializer_range": 0.02, "layer_norm_eps": EPS, "pad_token_id": 0,
        "position_embedding_type": "absolute",
        "id2label": {str(i): label for i, label in enumerate(LABELS)},
        "label2id": {label: i for i, label in enumerate(LABELS)},
    }
    with open(f"{out}/config.json", "w") as f:
        json.dump(config, f, indent=2)
    write_vocab(out, VOCAB)
    sd = make_state_dict()
    write_safetensors(f"{out}/model.safetensors", {k: v for k, v in sd.items() if k not in TIED})
    torch.save(sd, f"{out}/pytorch_model.bin")

    ids, mask, types = reference_inputs(VOCAB)
    with torch.no_grad():
        outputs = reference_forward(sd, ids, mask, types)
    write_safetensors(f"{out}/reference.safetensors",
                      {"input_ids": ids, "attention_mask": mask, "token_type_ids": types, **outputs})


if __name__ == "__main__":
    main()
