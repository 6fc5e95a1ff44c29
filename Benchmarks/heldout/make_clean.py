#!/usr/bin/env python3
"""Held-out clean photo pairs (fourteenth round): photos the GIF settings were never tuned on, to
check a change to how clean photos are dithered.
- clean-rocket: scikit-image's rocket -> a warmer, more saturated grade
- clean-motorcycle: scikit-image's motorcycle, left view -> right view (the same scene, shifted)
- clean-coffee: scikit-image's coffee -> a muted, contrasty grade
usage: make_clean.py OUT_DIR   (needs scikit-image for its sample pictures)"""
import os
import sys
from PIL import Image, ImageEnhance
import skimage.data

OUT = sys.argv[1]
DATA = os.path.dirname(skimage.data.__file__)


def load(name):
    return Image.open(os.path.join(DATA, name)).convert("RGB")


def grade(im, color, contrast, brightness):
    im = ImageEnhance.Color(im).enhance(color)
    im = ImageEnhance.Contrast(im).enhance(contrast)
    return ImageEnhance.Brightness(im).enhance(brightness)


def save(name, before, after):
    os.makedirs(os.path.join(OUT, name), exist_ok=True)
    before.save(os.path.join(OUT, name, "before.png"))
    after.save(os.path.join(OUT, name, "after.png"))


rocket = load("rocket.jpg")
save("clean-rocket", rocket, grade(rocket, 1.35, 1.1, 1.05))
save("clean-motorcycle", load("motorcycle_left.png"), load("motorcycle_right.png"))
coffee = load("coffee.png")
save("clean-coffee", coffee, grade(coffee, 0.7, 1.25, 0.95))
