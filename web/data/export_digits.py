#!/usr/bin/env python3
"""Export scikit-learn's 8x8 digits (UCI optdigits test set, 1797 images) once
into web/data/digits.bin, the dataset the demo page ships with.

Format (all uint8, no header):
  bytes [0, 1797*64)            pixels, row-major 8x8 per image, values 0..16
  bytes [1797*64, 1797*65)      labels 0..9
The first 1437 images are the demo's training split, the last 360 its test split
(the order is scikit-learn's, shuffled once here with a fixed seed).

    pip install scikit-learn && python web/data/export_digits.py
"""
import random
from pathlib import Path

from sklearn.datasets import load_digits

d = load_digits()
n = len(d.target)
order = list(range(n))
random.Random(0).shuffle(order)
pixels = bytes(int(v) for i in order for v in d.data[i])
labels = bytes(int(d.target[i]) for i in order)
assert len(pixels) == n * 64 and max(pixels) <= 16
out = Path(__file__).with_name("digits.bin")
out.write_bytes(pixels + labels)
print(f"wrote {out} ({n} images, {out.stat().st_size} bytes)")
