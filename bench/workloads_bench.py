#!/usr/bin/python3
"""PyTorch (Python) side of the workload benchmark, and the comparison with the LibTorch side.

Runs, per workload, the same measurement in Python and in bench/workloads_bench (C++): training
steps/s on one fixed synthetic batch (zero_grad, forward, loss, backward, optimizer step) and the
inference latency p50 (eval, no_grad). The model definitions below are written to match
experiments/models/ layer for layer (the parameter counts are printed side by side). Same batch,
same thread count, same machine, one run each, alternating per workload.

Usage: /usr/bin/python3 bench/workloads_bench.py --cpp build/<dir>/bench/workloads_bench [--threads 2]
Needs Debian's python3-torch (1.13).
"""
import argparse
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


class BertForSequenceClassification(nn.Module):
    def __init__(self, layers=2, hidden=128, heads=2, inter=512, vocab=30522, classes=2):
        super().__init__()
        self.word = nn.Embedding(vocab, hidden)
        self.position = nn.Embedding(512, hidden)
        self.token_type = nn.Embedding(2, hidden)
        self.embedding_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.dropout = nn.Dropout(0.1)
        self.layers = nn.ModuleList(BertLayer(hidden, heads, inter) for _ in range(layers))
        self.pooler = nn.Linear(hidden, hidden)
        self.classifier = nn.Linear(hidden, classes)

    def forward(self, ids, mask, types):
        positions = torch.arange(ids.shape[1])
        x = self.word(ids) + self.position(positions).unsqueeze(0) + self.token_type(types)
        x = self.dropout(self.embedding_norm(x))
        mask_bias = ((1.0 - mask.to(x.dtype)) * -10000.0).unsqueeze(1).unsqueeze(2)
        for layer in self.layers:
            x = layer(x, mask_bias)
        pooled = torch.tanh(self.pooler(x[:, 0]))
        return self.classifier(self.dropout(pooled))


def workload(name, batch):
    g = torch.Generator().manual_seed(0)
    if name == "lenet5":
        model = LeNet5()
        x = torch.randn(batch, 1, 28, 28, generator=g)
        y = torch.randint(0, 10, (batch,), generator=g)
        return model, (lambda: model(x)), y, torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    if name == "resnet18-cifar":
        model = ResNet18Cifar()
        x = torch.randn(batch, 3, 32, 32, generator=g)
        y = torch.randint(0, 10, (batch,), generator=g)
        return model, (lambda: model(x)), y, torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    if name == "bert-tiny":
        model = BertForSequenceClassification()
        ids = torch.randint(1000, 30522, (batch, 128), generator=g)
        mask = torch.ones(batch, 128, dtype=torch.long)
        types = torch.zeros(batch, 128, dtype=torch.long)
        y = torch.randint(0, 2, (batch,), generator=g)
        return (model, (lambda: model(ids, mask, types)), y,
                torch.optim.AdamW(model.parameters(), lr=5e-5, weight_decay=0.01))
    raise ValueError(name)


def run_python(name, batch, steps, queries, warmup):
    torch.manual_seed(0)
    model, forward, y, optimizer = workload(name, batch)

    def step():
        optimizer.zero_grad()
        F.cross_entropy(forward(), y).backward()
        optimizer.step()

    model.train()
    for _ in range(warmup):
        step()
    start = time.perf_counter()
    for _ in range(steps):
        step()
    train_s = time.perf_counter() - start
    model.eval()
    latencies = []
    with torch.no_grad():
        for _ in range(warmup):
            forward()
        for _ in range(queries):
            t = time.perf_counter()
            forward()
            latencies.append(time.perf_counter() - t)
    latencies.sort()
    p50 = latencies[math.ceil(0.5 * len(latencies)) - 1]  # nearest rank, as the C++ side
    return {"model": name, "parameters": sum(p.numel() for p in model.parameters() if p.requires_grad),
            "train_steps_per_s": steps / train_s, "infer_p50_ms": p50 * 1e3}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cpp", required=True, help="path of the built bench/workloads_bench executable")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--only", nargs="*", default=["lenet5", "resnet18-cifar", "bert-tiny"])
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    targets = {"lenet5": 1.2, "resnet18-cifar": 1.0, "bert-tiny": 1.0}
    rows = []
    for name in args.only:
        py = run_python(name, args.batch, args.steps, args.queries, args.warmup)
        out = subprocess.run([args.cpp, "--threads", str(args.threads), "--steps", str(args.steps), "--queries",
                              str(args.queries), "--warmup", str(args.warmup), "--only", name],
                             check=True, capture_output=True, text=True).stdout
        cpp = json.loads(out)["results"][0]
        if cpp["batch"] != args.batch:
            sys.exit(f"C++ side ran batch {cpp['batch']}, Python {args.batch}")
        rows.append((name, py, cpp))
    print(f"torch {torch.__version__} (Python) vs LibTorch, {args.threads} threads, batch {args.batch}, "
          f"{args.steps} training steps, {args.queries} queries, warm-up {args.warmup}")
    print(f"{'workload':<16}{'params py':>12}{'params c++':>12}{'train/s py':>12}{'train/s c++':>13}{'ratio':>7}"
          f"{'p50 ms py':>11}{'p50 ms c++':>12}{'ratio':>7}{'target':>8}")
    for name, py, cpp in rows:
        train_ratio = cpp["train_steps_per_s"] / py["train_steps_per_s"]
        infer_ratio = py["infer_p50_ms"] / cpp["infer_p50_ms"]
        print(f"{name:<16}{py['parameters']:>12,}{cpp['parameters']:>12,}{py['train_steps_per_s']:>12.2f}"
              f"{cpp['train_steps_per_s']:>13.2f}{train_ratio:>7.2f}{py['infer_p50_ms']:>11.3f}"
              f"{cpp['infer_p50_ms']:>12.3f}{infer_ratio:>7.2f}{targets[name]:>7.1f}x")
    print("ratio = C++ speed / Python speed (steps/s ratio; p50 latency Python / C++); above 1 means C++ is faster")


if __name__ == "__main__":
    main()
