#!/usr/bin/env python3
"""PyTorch side of bench/train_compare.py: LeNet-5 on Fashion-MNIST as a PyTorch user trains it.

    train_peer.py --data DIR [--batch 16] [--max-batches N] [--epochs 2] [--threads 1]

The model is jetchar's lenet5 (experiments/models/lenet5.cpp: conv 5x5 padding 2 -> 6, max-pool,
conv 5x5 -> 16, max-pool, 120, 84, 10, ReLU between), the data torchvision's FashionMNIST with
ToTensor and Normalize(0.1307, 0.3081) (jetchar's fashion-mnist transform) through a DataLoader
with no workers and shuffling, the optimizer SGD lr 0.01 momentum 0.9 (jetchar's default), each
epoch's loss and accuracy summed as the PyTorch tutorials do; the fetch stall is the time spent
waiting for the loader's next minibatch, as jetchar times it. DIR holds the data set's four
.gz files (Debian's dataset-fashion-mnist: /usr/share/datasets/fashion-mnist); they are unpacked
into a temporary folder in torchvision's layout. Prints one JSON line per epoch.
"""
import argparse
import gzip
import json
import os
import shutil
import tempfile
import time

import torch
import torch.nn.functional as F
import torchvision
from torch import nn
from torch.utils.data import DataLoader
from torchvision import transforms

FILES = ["train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"]


class LeNet5(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, padding=2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.flatten(1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


def unpack(data, into):
    raw = os.path.join(into, "FashionMNIST", "raw")
    os.makedirs(raw)
    for name in FILES:
        with gzip.open(os.path.join(data, name + ".gz"), "rb") as source, open(os.path.join(raw, name), "wb") as out:
            shutil.copyfileobj(source, out)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--max-batches", type=int)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    with tempfile.TemporaryDirectory() as root:
        unpack(args.data, root)
        dataset = torchvision.datasets.FashionMNIST(
            root, train=True, download=False,
            transform=transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))]))
        loader = DataLoader(dataset, batch_size=args.batch, shuffle=True, num_workers=0)
        model = LeNet5()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        model.train()
        for epoch in range(args.epochs):
            samples, loss_sum, correct, stall = 0, 0.0, 0, 0.0
            start = time.perf_counter()
            iterator = iter(loader)
            for index in range(len(loader) if args.max_batches is None else min(len(loader), args.max_batches)):
                fetch_start = time.perf_counter()
                images, labels = next(iterator)
                stall += time.perf_counter() - fetch_start
                optimizer.zero_grad()
                logits = model(images)
                loss = F.cross_entropy(logits, labels)
                loss.backward()
                optimizer.step()
                loss_sum += loss.item() * images.size(0)
                correct += (logits.argmax(1) == labels).sum().item()
                samples += images.size(0)
            seconds = time.perf_counter() - start
            print(json.dumps({"impl": "pytorch", "epoch": epoch, "samples": samples, "seconds": round(seconds, 4),
                              "samples_per_s": round(samples / seconds, 1), "stall_s": round(stall, 4),
                              "loss": loss_sum / samples,
                              "accuracy": correct / samples}), flush=True)


if __name__ == "__main__":
    main()
