#!/usr/bin/env python3
"""The peer of bench/loaders_bench: PyTorch's DataLoader (Debian's python3-torch / torchvision) on
the same files, with the same transforms, batch size, prefetch factor and worker counts.

    loaders_peer.py --data DIR [--workers 0 1 2] [--batch 16] [--only KIND]

Data sets mirror the seed study's client scripts: torchvision FashionMNIST (ToTensor, Normalize
0.1307/0.3081); CIFAR-10 binary records read into memory and returned through PIL as torchvision's
CIFAR10 does (ToTensor, Normalize CIFAR mean/std); an ImageFolder with RandomResizedCrop(224),
RandomHorizontalFlip, ToTensor, Normalize(0.5), Cutout(16) (the GLD-23k pipeline). One JSON line
per (data set, workers).
"""
import argparse
import json
import os
import time

import numpy as np
import torch
import torchvision
from PIL import Image
from torch.utils.data import DataLoader, Dataset
from torchvision import transforms


class Cutout:
    """DeVries & Taylor's Cutout as in the seed study's GLD-23k transform (after Normalize)."""

    def __init__(self, length):
        self.length = length

    def __call__(self, img):
        h, w = img.size(1), img.size(2)
        mask = np.ones((h, w), np.float32)
        y, x = np.random.randint(h), np.random.randint(w)
        y1, y2 = np.clip(y - self.length // 2, 0, h), np.clip(y + self.length // 2, 0, h)
        x1, x2 = np.clip(x - self.length // 2, 0, w), np.clip(x + self.length // 2, 0, w)
        mask[y1:y2, x1:x2] = 0.0
        return img * torch.from_numpy(mask).expand_as(img)


class CifarBin(Dataset):
    """CIFAR-10 binary batches, held in memory as torchvision's CIFAR10 holds its pickles."""

    def __init__(self, directory, transform):
        files = sorted(f for f in os.listdir(directory) if f.startswith("data_batch_") and f.endswith(".bin"))
        raw = np.concatenate([np.fromfile(os.path.join(directory, f), np.uint8).reshape(-1, 3073) for f in files])
        self.targets = raw[:, 0].astype(np.int64).tolist()
        self.data = raw[:, 1:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1).copy()  # HWC, as torchvision
        self.transform = transform

    def __len__(self):
        return len(self.data)

    def __getitem__(self, index):
        img = Image.fromarray(self.data[index])
        return self.transform(img), self.targets[index]


def datasets(root):
    return {
        "fashion-mnist": lambda: torchvision.datasets.FashionMNIST(
            root, train=True, download=False,
            transform=transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])),
        "cifar10": lambda: CifarBin(os.path.join(root, "cifar10"), transforms.Compose([
            transforms.ToTensor(), transforms.Normalize((0.4914, 0.4822, 0.4465), (0.2023, 0.1994, 0.2010))])),
        "jpeg": lambda: torchvision.datasets.ImageFolder(os.path.join(root, "jpeg"), transforms.Compose([
            transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip(), transforms.ToTensor(),
            transforms.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5)), Cutout(16)])),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True)
    parser.add_argument("--workers", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--only")
    args = parser.parse_args()
    torch.manual_seed(1)
    for kind, make in datasets(args.data).items():
        if args.only and args.only != kind:
            continue
        dataset = make()
        for workers in args.workers:
            extra = {"prefetch_factor": 2} if workers > 0 else {}
            loader = DataLoader(dataset, batch_size=args.batch, shuffle=True, num_workers=workers, drop_last=False,
                                pin_memory=False, **extra)
            samples, stall = 0, 0.0
            start = time.perf_counter()
            iterator = iter(loader)
            while True:
                t0 = time.perf_counter()
                try:
                    images, _ = next(iterator)
                except StopIteration:
                    break
                stall += time.perf_counter() - t0
                samples += images.size(0)
                float(images.view(-1)[0])  # touch the data, as the C++ bench does
            seconds = time.perf_counter() - start
            print(json.dumps({"impl": "pytorch", "dataset": kind, "workers": workers, "batch": args.batch,
                              "samples": samples, "seconds": round(seconds, 4),
                              "samples_per_s": round(samples / seconds, 1), "stall_s": round(stall, 4)}), flush=True)


if __name__ == "__main__":
    main()
