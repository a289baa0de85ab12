#!/usr/bin/python3
"""PyTorch (Python) side of the workload benchmark, and the comparison with the LibTorch side.

Runs, per workload, the same measurement in Python and in bench/workloads_bench (C++): training
steps/s on one fixed synthetic batch (zero_grad, forward, loss, backward, optimizer step) and the
inference latencies (eval, no_grad). The model definitions below are written to match
experiments/models/ layer for layer (the parameter counts are printed side by side). Same batch,
sequence length, precision, device and thread count, same machine, one run each, alternating per
workload. On a GPU every step and query ends with a synchronize on both sides; amp-fp16 and bf16
autocast the forward pass and the loss, amp-fp16 training scales the loss as torch.cuda.amp.GradScaler
does; fp32 turns TF32 off in cuBLAS and cuDNN and tf32 turns it on, as jetchar does.

Usage: /usr/bin/python3 bench/workloads_bench.py --cpp build/<dir>/bench/workloads_bench [--threads 2]
       [--device cuda] [--precision fp32|tf32|amp-fp16|bf16] [--batch B] [--seq L] [--infer-only]
       [--only MODEL...]   (lenet5, resnet18-cifar, bert-tiny[-qa], bert-base[-qa], electra-small, electra-base)
Needs Debian's python3-torch (1.13) or any later PyTorch (a CUDA one for --device cuda).
"""
import argparse
import contextlib
import json
import math
import subprocess
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class LeNet5(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, padding=2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(400, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.flatten(1)
        return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.norm1 = nn.GroupNorm(cout, cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.norm2 = nn.GroupNorm(cout, cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.GroupNorm(cout, cout))

    def forward(self, x):
        out = F.relu(self.norm1(self.conv1(x)))
        out = self.norm2(self.conv2(out))
        return F.relu(out + (self.down(x) if self.down is not None else x))


class ResNet18Cifar(nn.Module):
    """The seed study's CIFAR ResNet-18: 3x3 stem, no max-pool, GroupNorm(C, C)."""

    def __init__(self, classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 3, 1, 1, bias=False)
        self.norm1 = nn.GroupNorm(64, 64)
        blocks, cin = [], 64
        for stage, width in enumerate([64, 128, 256, 512]):
            for block in range(2):
                blocks.append(BasicBlock(cin, width, 2 if stage > 0 and block == 0 else 1))
                cin = width
        self.blocks = nn.Sequential(*blocks)
        self.fc = nn.Linear(512, classes)

    def forward(self, x):
        x = self.blocks(F.relu(self.norm1(self.conv1(x))))
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


class BertLayer(nn.Module):
    def __init__(self, hidden, heads, inter):
        super().__init__()
        self.heads = heads
        self.query, self.key, self.value = (nn.Linear(hidden, hidden) for _ in range(3))
        self.attention_out = nn.Linear(hidden, hidden)
        self.attention_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.intermediate = nn.Linear(hidden, inter)
        self.output = nn.Linear(inter, hidden)
        self.output_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.dropout = nn.Dropout(0.1)

    def forward(self, x, mask_bias):
        b, length, hidden = x.shape
        head = hidden // self.heads

        def split(t):
            return t.view(b, length, self.heads, head).transpose(1, 2)

        q, k, v = split(self.query(x)), split(self.key(x)), split(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(head) + mask_bias
        probs = self.dropout(torch.softmax(scores, -1))
        context = torch.matmul(probs, v).transpose(1, 2).reshape(b, length, hidden)
        attended = self.attention_norm(self.dropout(self.attention_out(context)) + x)
        return self.output_norm(self.dropout(self.output(F.gelu(self.intermediate(attended)))) + attended)


class BertModel(nn.Module):
    def __init__(self, layers, hidden, heads, vocab=30522):
        super().__init__()
        self.word = nn.Embedding(vocab, hidden)
        self.position = nn.Embedding(512, hidden)
        self.token_type = nn.Embedding(2, hidden)
        self.embedding_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.dropout = nn.Dropout(0.1)
        self.layers = nn.ModuleList(BertLayer(hidden, heads, 4 * hidden) for _ in range(layers))

    def forward(self, ids, mask, types):
        positions = torch.arange(ids.shape[1], device=ids.device)
        x = self.word(ids) + self.position(positions).unsqueeze(0) + self.token_type(types)
        x = self.dropout(self.embedding_norm(x))
        mask_bias = ((1.0 - mask.to(x.dtype)) * -10000.0).unsqueeze(1).unsqueeze(2)
        for layer in self.layers:
            x = layer(x, mask_bias)
        return x


class BertForSequenceClassification(nn.Module):
    def __init__(self, size, classes=2):
        super().__init__()
        self.bert = BertModel(*size)
        hidden = size[1]
        self.pooler = nn.Linear(hidden, hidden)
        self.classifier = nn.Linear(hidden, classes)
        self.dropout = nn.Dropout(0.1)

    def forward(self, ids, mask, types):
        pooled = torch.tanh(self.pooler(self.bert(ids, mask, types)[:, 0]))
        return self.classifier(self.dropout(pooled))


class BertForQuestionAnswering(nn.Module):
    """HF's layout: no pooler, start/end scores per token."""

    def __init__(self, size):
        super().__init__()
        self.bert = BertModel(*size)
        self.qa_outputs = nn.Linear(size[1], 2)

    def forward(self, ids, mask, types):
        return self.qa_outputs(self.bert(ids, mask, types))


BERT_SIZES = {"bert-tiny": (2, 128, 2), "bert-base": (12, 768, 12)}  # layers, hidden, heads (experiments/models/bert.cpp)


class ElectraForPreTraining(nn.Module):
    """jetchar's electra-* (experiments/models/electra.h): a generator and a discriminator of 12 layers each
    on shared embeddings of width E; the forward pass returns the loss (generator cross-entropy at the masked
    positions + 50 x the discriminator's binary cross-entropy on the sequence with the generator's samples)."""

    def __init__(self, embedding, hidden, heads, inter, gen_hidden, gen_heads, gen_inter, vocab=30522):
        super().__init__()
        self.word = nn.Embedding(vocab, embedding)
        self.position = nn.Embedding(512, embedding)
        self.token_type = nn.Embedding(2, embedding)
        self.embedding_norm = nn.LayerNorm(embedding, eps=1e-12)
        self.dropout = nn.Dropout(0.1)
        self.project = nn.Linear(embedding, hidden) if embedding != hidden else None
        self.layers = nn.ModuleList(BertLayer(hidden, heads, inter) for _ in range(12))
        self.gen_project = nn.Linear(embedding, gen_hidden) if embedding != gen_hidden else None
        self.gen_layers = nn.ModuleList(BertLayer(gen_hidden, gen_heads, gen_inter) for _ in range(12))
        self.disc_dense, self.disc_prediction = nn.Linear(hidden, hidden), nn.Linear(hidden, 1)
        self.gen_dense, self.gen_norm = nn.Linear(gen_hidden, embedding), nn.LayerNorm(embedding, eps=1e-12)
        self.gen_bias = nn.Parameter(torch.zeros(vocab))

    def encode(self, ids, types, mask_bias, project, layers):
        positions = torch.arange(ids.shape[1], device=ids.device)
        x = self.word(ids) + self.position(positions).unsqueeze(0) + self.token_type(types)
        x = self.dropout(self.embedding_norm(x))
        if project is not None:
            x = project(x)
        for layer in layers:
            x = layer(x, mask_bias)
        return x

    def forward(self, ids, mask, types, targets):
        masked = targets.ne(-100)
        mask_bias = ((1.0 - mask.float()) * -10000.0).unsqueeze(1).unsqueeze(2)
        g = self.encode(ids, types, mask_bias, self.gen_project, self.gen_layers)
        scores = F.linear(self.gen_norm(F.gelu(self.gen_dense(g[masked]))), self.word.weight, self.gen_bias).float()
        generator_loss = F.cross_entropy(scores, targets[masked])
        with torch.no_grad():
            sampled = torch.multinomial(torch.softmax(scores, -1), 1).squeeze(1)
        corrupted = ids.clone()
        corrupted[masked] = sampled
        replaced = corrupted.ne(torch.where(masked, targets, ids)).float()
        d = self.encode(corrupted, types, mask_bias, self.project, self.layers)
        logits = self.disc_prediction(F.gelu(self.disc_dense(d))).squeeze(-1).float()
        active = mask.eq(1)
        return generator_loss + 50 * F.binary_cross_entropy_with_logits(logits[active], replaced[active])


# embedding, hidden, heads, intermediate; the generator's hidden, heads, intermediate (experiments/models/electra.cpp)
ELECTRA_SIZES = {"electra-small": (128, 256, 4, 1024, 256, 4, 1024), "electra-base": (768, 768, 12, 3072, 256, 4, 1024)}


def workload(name, batch, seq, device):
    """(model, forward, loss of the forward's output, optimizer), on `device`."""
    g = torch.Generator().manual_seed(0)
    if name in ("lenet5", "resnet18-cifar"):
        model = (LeNet5() if name == "lenet5" else ResNet18Cifar()).to(device)
        x = torch.randn(batch, *((1, 28, 28) if name == "lenet5" else (3, 32, 32)), generator=g).to(device)
        y = torch.randint(0, 10, (batch,), generator=g).to(device)
        return (model, (lambda: model(x)), (lambda out: F.cross_entropy(out, y)),
                torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9))
    base = name.removesuffix("-qa")
    if base in BERT_SIZES:
        qa = name.endswith("-qa")
        model = (BertForQuestionAnswering(BERT_SIZES[base]) if qa
                 else BertForSequenceClassification(BERT_SIZES[base])).to(device)
        ids = torch.randint(1000, 30522, (batch, seq), generator=g).to(device)
        mask = torch.ones(batch, seq, dtype=torch.long, device=device)
        types = torch.zeros(batch, seq, dtype=torch.long, device=device)
        if qa:
            y = torch.randint(0, seq, (batch, 2), generator=g).sort(1).values.to(device)

            def loss(out):
                return (F.cross_entropy(out[:, :, 0], y[:, 0]) + F.cross_entropy(out[:, :, 1], y[:, 1])) / 2
        else:
            y = torch.randint(0, 2, (batch,), generator=g).to(device)

            def loss(out):
                return F.cross_entropy(out, y)
        return (model, (lambda: model(ids, mask, types)), loss,
                torch.optim.AdamW(model.parameters(), lr=5e-5, weight_decay=0.01))
    if name in ELECTRA_SIZES:
        model = ElectraForPreTraining(*ELECTRA_SIZES[name]).to(device)
        ids = torch.randint(1000, 30522, (batch, seq), generator=g)
        # About 15 % of the positions masked, their own ids the targets (registry.cpp's synthetic batch).
        targets = torch.where(torch.rand(batch, seq, generator=g).lt(0.15), ids, torch.full_like(ids, -100))
        ids, targets = ids.to(device), targets.to(device)
        mask = torch.ones(batch, seq, dtype=torch.long, device=device)
        types = torch.zeros(batch, seq, dtype=torch.long, device=device)
        return (model, (lambda: model(ids, mask, types, targets)), (lambda out: out),
                torch.optim.AdamW(model.parameters(), lr=5e-5, weight_decay=0.01))
    raise ValueError(f"unknown model {name}; valid: lenet5, resnet18-cifar, " + ", ".join(
        f"{b}, {b}-qa" for b in BERT_SIZES) + ", " + ", ".join(ELECTRA_SIZES))


def autocast(precision, device):
    if precision not in ("amp-fp16", "bf16"):
        return contextlib.nullcontext()
    return torch.autocast(device.type, dtype=torch.float16 if precision == "amp-fp16" else torch.bfloat16)


def run_python(name, args, device):
    torch.manual_seed(0)
    model, forward, loss_of, optimizer = workload(name, args.batch, args.seq, device)
    scaler = torch.cuda.amp.GradScaler() if args.precision == "amp-fp16" else None

    def sync():
        if device.type == "cuda":
            torch.cuda.synchronize(device)

    def step():
        optimizer.zero_grad()
        with autocast(args.precision, device):
            loss = loss_of(forward())
        if scaler is None:
            loss.backward()
            optimizer.step()
        else:
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        sync()

    result = {"model": name, "parameters": sum(p.numel() for p in model.parameters() if p.requires_grad)}
    if not args.infer_only:
        model.train()
        for _ in range(args.warmup):
            step()
        start = time.perf_counter()
        for _ in range(args.steps):
            step()
        result["train_steps_per_s"] = args.steps / (time.perf_counter() - start)
    model.eval()
    latencies = []
    with torch.inference_mode():
        def query():
            with autocast(args.precision, device):
                forward()
            sync()
        for _ in range(args.warmup):
            query()
        start = time.perf_counter()
        for _ in range(args.queries):
            t = time.perf_counter()
            query()
            latencies.append(time.perf_counter() - t)
        timed = time.perf_counter() - start
    latencies.sort()

    def rank(q):  # nearest rank, as the C++ side
        return latencies[math.ceil(q * len(latencies)) - 1] * 1e3
    result.update({"infer_p50_ms": rank(0.5), "infer_p90_ms": rank(0.9), "infer_p99_ms": rank(0.99),
                   "infer_samples_per_s": args.queries * args.batch / timed})
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cpp", required=True, help="path of the built bench/workloads_bench executable")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--seq", type=int, default=128, help="sequence length of the BERT models")
    parser.add_argument("--device", default="cpu", help="cpu, cuda or cuda:N")
    parser.add_argument("--precision", default="fp32", choices=["fp32", "tf32", "amp-fp16", "bf16"])
    parser.add_argument("--infer-only", action="store_true", help="inference latencies only, no training")
    parser.add_argument("--json", action="store_true", help="also print both sides' figures as one JSON line")
    parser.add_argument("--only", nargs="*", default=["lenet5", "resnet18-cifar", "bert-tiny"])
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    if device.type == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = args.precision == "tf32"
        torch.backends.cudnn.allow_tf32 = args.precision == "tf32"
    targets = {"lenet5": 1.2}
    rows = []
    for name in args.only:
        py = run_python(name, args, device)
        command = [args.cpp, "--threads", str(args.threads), "--steps", str(args.steps), "--queries",
                   str(args.queries), "--warmup", str(args.warmup), "--batch", str(args.batch), "--seq",
                   str(args.seq), "--device", args.device, "--precision", args.precision, "--only", name]
        if args.infer_only:
            command.append("--infer-only")
        cpp = json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)["results"][0]
        if cpp["batch"] != args.batch:
            sys.exit(f"C++ side ran batch {cpp['batch']}, Python {args.batch}")
        rows.append((name, py, cpp))
    print(f"torch {torch.__version__} (Python) vs LibTorch, {args.device}"
          f"{' (' + torch.cuda.get_device_name(device) + ')' if device.type == 'cuda' else ''}, {args.precision}, "
          f"{args.threads} threads, batch {args.batch}, sequence length {args.seq} (BERT), "
          f"{'no training' if args.infer_only else f'{args.steps} training steps'}, {args.queries} queries, "
          f"warm-up {args.warmup}")
    print(f"{'workload':<16}{'params py':>12}{'params c++':>12}{'train/s py':>12}{'train/s c++':>13}{'ratio':>7}"
          f"{'p50 ms py':>11}{'p50 ms c++':>12}{'ratio':>7}{'p99 ms c++':>12}{'samples/s c++':>15}{'target':>8}")
    for name, py, cpp in rows:
        if args.infer_only:
            train = f"{'-':>12}{'-':>13}{'-':>7}"
        else:
            train = (f"{py['train_steps_per_s']:>12.2f}{cpp['train_steps_per_s']:>13.2f}"
                     f"{cpp['train_steps_per_s'] / py['train_steps_per_s']:>7.2f}")
        target = f"{targets[name]:>7.1f}x" if name in targets and args.device == "cpu" else f"{'-':>8}"
        print(f"{name:<16}{py['parameters']:>12,}{cpp['parameters']:>12,}{train}{py['infer_p50_ms']:>11.3f}"
              f"{cpp['infer_p50_ms']:>12.3f}{py['infer_p50_ms'] / cpp['infer_p50_ms']:>7.2f}"
              f"{cpp['infer_p99_ms']:>12.3f}{cpp['infer_samples_per_s']:>15.1f}{target}")
    print("ratio = C++ speed / Python speed (steps/s ratio; p50 latency Python / C++); above 1 means C++ is faster")
    if args.json:
        print(json.dumps({"device": args.device, "precision": args.precision, "batch": args.batch, "seq": args.seq,
                          "rows": [{"model": n, "python": p, "libtorch": c} for n, p, c in rows]}))


if __name__ == "__main__":
    main()
