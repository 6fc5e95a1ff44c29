#!/usr/bin/env python3
"""Held-out restoration pairs (thirteenth round): a noisy photo -> the clean photo, as pair D
(fixtures/restoration: coffee with Gaussian noise, sigma 14) but on pictures it was never tuned on.
- noisy-rocket: scikit-image's rocket, sigma 14 (seed 21), at its own size (sweep scales it up)
- noisy-motorcycle: scikit-image's motorcycle (left view), sigma 10 (seed 22), at its own size
- noisy-glow: fixtures/photos/eveningglow.jpg scaled to 720x720, sigma 8 (seed 23) at that size
- textured-ihc: scikit-image's immunohistochemistry slide -> graded (no noise added): a photo
  textured all over, to check that texture alone is not taken for noise
usage: make_noisy.py OUT_DIR   (needs numpy and scikit-image for its sample pictures)"""
import os
import sys
import numpy as np
from PIL import Image, ImageEnhance
from pictures import FIX, load, save

OUT = sys.argv[1]


def noisy(im, sigma, seed):
    a = np.asarray(im.convert("RGB")).astype(np.float64)
    a += np.random.default_rng(seed).normal(0, sigma, a.shape)
    return Image.fromarray(np.clip(np.rint(a), 0, 255).astype(np.uint8))


def square720(im):
    s = 720 / min(im.size)
    im = im.resize((round(im.width * s), round(im.height * s)), Image.LANCZOS)
    left, top = (im.width - 720) // 2, (im.height - 720) // 2
    return im.crop((left, top, left + 720, top + 720))


rocket = load("rocket.jpg")
save(OUT, "noisy-rocket", noisy(rocket, 14, 21), rocket)
moto = load("motorcycle_left.png")
save(OUT, "noisy-motorcycle", noisy(moto, 10, 22), moto)
glow = square720(Image.open(os.path.join(FIX, "photos", "eveningglow.jpg")).convert("RGB"))
save(OUT, "noisy-glow", noisy(glow, 8, 23), glow)
ihc = load("ihc.png")
save(OUT, "textured-ihc", ihc, ImageEnhance.Contrast(ImageEnhance.Color(ihc).enhance(1.4)).enhance(1.15))
