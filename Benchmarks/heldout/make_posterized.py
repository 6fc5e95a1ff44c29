#!/usr/bin/env python3
"""Held-out posterized photo pairs (eleventh round): photos of at most 255 colours, as GIF-sourced
or posterized pictures are, each pair quantized to one shared palette so both sides stay exact.
- hubble-poster: scikit-image's Hubble deep field (a 720x720 crop) -> graded, 230 colours, dithered
- retina-poster: scikit-image's retina (a 720x720 crop) -> graded, 200 colours, undithered
- glow-poster: fixtures/photos/eveningglow.jpg (scaled, 720x720) -> graded, 240 colours, dithered
usage: make_posterized.py OUT_DIR   (needs `pip install scikit-image` for its sample pictures)"""
import os
import sys
from PIL import Image
from pictures import FIX, grade, load, save

OUT = sys.argv[1]


def crop720(im):
    s = 720 / min(im.size)
    if s < 1:
        im = im.resize((round(im.width * s), round(im.height * s)), Image.LANCZOS)
    left, top = (im.width - 720) // 2, (im.height - 720) // 2
    return im.crop((left, top, left + 720, top + 720))


def pair(name, before, after, colours, dither):
    both = Image.new("RGB", (1440, 720))
    both.paste(before, (0, 0))
    both.paste(after, (720, 0))
    q = both.quantize(colours, method=Image.Quantize.MEDIANCUT, dither=dither).convert("RGB")
    save(OUT, name, q.crop((0, 0, 720, 720)), q.crop((720, 0, 1440, 720)))


hubble = crop720(load("hubble_deep_field.jpg"))
pair("hubble-poster", hubble, grade(hubble, 0.6, 1.25), 230, Image.Dither.FLOYDSTEINBERG)
# The retina is cropped at full size, not scaled first (crop720 would halve it): its vessels stay fine.
retina = load("retina.jpg")
m = (retina.width - 720) // 2
retina = retina.crop((m, m, m + 720, m + 720))
pair("retina-poster", retina, grade(retina, 1.3, 0.9, 1.1), 200, Image.Dither.NONE)
glow = crop720(Image.open(os.path.join(FIX, "photos", "eveningglow.jpg")).convert("RGB"))
pair("glow-poster", glow, grade(glow, 1.2, 1.1, 0.9), 240, Image.Dither.FLOYDSTEINBERG)
