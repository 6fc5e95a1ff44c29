#!/usr/bin/env python3
"""Held-out clean photo pairs (fourteenth round): photos the GIF settings were never tuned on, to
check a change to how clean photos are dithered.
- clean-rocket: scikit-image's rocket -> a warmer, more saturated grade
- clean-motorcycle: scikit-image's motorcycle, left view -> right view (the same scene, shifted)
- clean-coffee: scikit-image's coffee -> a muted, contrasty grade
usage: make_clean.py OUT_DIR   (needs scikit-image for its sample pictures)"""
import sys
from pictures import grade, load, save

OUT = sys.argv[1]
rocket = load("rocket.jpg")
save(OUT, "clean-rocket", rocket, grade(rocket, 1.35, 1.1, 1.05))
save(OUT, "clean-motorcycle", load("motorcycle_left.png"), load("motorcycle_right.png"))
coffee = load("coffee.png")
save(OUT, "clean-coffee", coffee, grade(coffee, 0.7, 1.25, 0.95))
