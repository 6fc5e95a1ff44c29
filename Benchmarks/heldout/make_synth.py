#!/usr/bin/env python3
"""Procedural held-out pairs: pixelart (64x48 scene, day -> night, NEAREST x20) and gradients2.
usage: make_synth.py OUT_DIR  (writes OUT_DIR/<pair>/before.png and after.png)"""
import os
import numpy as np
from PIL import Image
import sys
OUT = sys.argv[1]

def save(name, which, arr):
    d = os.path.join(OUT, name); os.makedirs(d, exist_ok=True)
    Image.fromarray(arr).save(os.path.join(d, which + ".png"))

def pixelart():
    W, H = 64, 48
    # Scene as an index map: 0 sky,1 sky2,2 sun/moon,3 cloud,4 far hills,5 grass,6 grass2,7 trunk,8 leaves,
    # 9 house wall,10 roof,11 window,12 door,13 path,14 water,15/16 star on sky/sky2
    m = np.zeros((H, W), np.uint8)
    m[: 14] = 0; m[14:34] = 1
    rng = np.random.default_rng(3)
    for x in range(W):  # hills
        h = int(28 + 4 * np.sin(x / 7) + 2 * np.sin(x / 3 + 1))
        m[h:34, x] = 4
    m[34:, :] = 5
    for y in range(34, H):
        for x in range(W):
            if (x * 3 + y * 5) % 11 == 0: m[y, x] = 6
    m[40:, 44:64] = 14  # pond
    m[39, 46:62] = 14
    yy, xx = np.mgrid[0:H, 0:W]
    m[(xx - 52) ** 2 + (yy - 8) ** 2 <= 16] = 2  # sun / moon
    for cx, cy in ((12, 6), (30, 10)):  # clouds
        m[((xx - cx) ** 2 / 16 + (yy - cy) ** 2 / 2.5 <= 1)] = 3
        m[((xx - cx - 4) ** 2 / 9 + (yy - cy + 1) ** 2 / 2.5 <= 1)] = 3
    for s in rng.choice(W * 24, 40, replace=False):  # stars (only visible at night)
        y, x = divmod(int(s), W)
        if m[y, x] in (0, 1): m[y, x] = 15 + m[y, x]  # 15 star on sky, 16 star on sky2
    # tree
    m[30:40, 36:38] = 7
    m[((xx - 37) ** 2 + (yy - 27) ** 2 <= 30)] = 8
    # house
    m[29:40, 12:28] = 9
    for i in range(7):
        m[22 + i, 11 + i: 29 - i] = 10
    m[31:35, 14:18] = 11; m[31:35, 22:26] = 11
    m[33:40, 19:22] = 12
    m[40:, 19:22] = 13; m[44:, 21:25] = 13
    day = {0: (92, 172, 236), 1: (140, 200, 244), 2: (255, 214, 64), 3: (250, 250, 250), 4: (86, 150, 96),
           5: (96, 184, 72), 6: (70, 150, 56), 7: (120, 76, 40), 8: (40, 120, 48), 9: (232, 208, 160),
           10: (196, 60, 44), 11: (120, 200, 236), 12: (110, 70, 40), 13: (200, 176, 128), 14: (56, 120, 216),
           15: (92, 172, 236), 16: (140, 200, 244)}  # by day a star is the sky under it
    night = {0: (14, 18, 48), 1: (30, 34, 80), 2: (236, 236, 200), 3: (64, 70, 110), 4: (24, 48, 56),
             5: (28, 64, 40), 6: (20, 48, 32), 7: (56, 36, 28), 8: (16, 48, 32), 9: (92, 86, 110),
             10: (96, 30, 40), 11: (255, 210, 90), 12: (48, 32, 28), 13: (80, 76, 90), 14: (20, 40, 96),
             15: (255, 255, 220), 16: (255, 255, 220)}
    for name, pal in (("before", day), ("after", night)):
        lut = np.array([pal[i] for i in range(17)], np.uint8)
        img = Image.fromarray(lut[m]).resize((1280, 960), Image.NEAREST)
        save("pixelart", name, np.asarray(img))

def gradients2():
    W, H = 1440, 1080
    y, x = np.mgrid[0:H, 0:W].astype(np.float64)
    x, y = x / (W - 1), y / (H - 1)
    def ramp(t, stops):
        t = np.clip(t, 0, 1)
        pos = np.array([s[0] for s in stops]); col = np.array([s[1] for s in stops], np.float64)
        return np.stack([np.interp(t, pos, col[:, k]) for k in range(3)], -1)
    # before: radial pink -> orange -> yellow, with a soft white highlight
    r = np.sqrt(((x - 0.45) * W / H) ** 2 + (y - 0.55) ** 2) / 0.95
    rgb = ramp(r, [(0, (255, 120, 180.0)), (0.5, (255, 150, 70.0)), (1, (255, 230, 90.0))])
    hl = np.exp(-(((x - 0.3) * W / H) ** 2 + (y - 0.3) ** 2) / 0.02)[..., None]
    rgb = rgb * (1 - 0.6 * hl) + 255.0 * 0.6 * hl
    save("gradients2", "before", np.clip(rgb + 0.5, 0, 255).astype(np.uint8))
    # after: conic blue -> green -> blue around a centre, with a vignette
    ang = (np.arctan2(y - 0.5, (x - 0.5) * W / H) / (2 * np.pi)) % 1.0
    rgb = ramp(ang, [(0, (30, 80, 200.0)), (0.35, (40, 170, 190.0)), (0.65, (70, 200, 110.0)), (1, (30, 80, 200.0))])
    v = ((x - 0.5) * W / H) ** 2 + (y - 0.5) ** 2
    rgb = rgb * (1 - 0.7 * np.clip(v / 0.6, 0, 1) ** 1.5)[..., None]
    save("gradients2", "after", np.clip(rgb + 0.5, 0, 255).astype(np.uint8))

if __name__ == "__main__":
    pixelart(); gradients2(); print("ok")
