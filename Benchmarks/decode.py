#!/usr/bin/env python3
"""What decoding in a worker process costs: sweep with `--decode worker` (the default)
against itself with `--decode in-process`, same inputs, same run.

Usage: decode.py [runs]   (Benchmarks/run.sh decode)

- Stills: one 12 MP picture (4000x3000) shown through a look as a 600x450 PNG preview, so one
  still is decoded per run: a JPEG, a PNG screenshot scaled up, and a HEIC (when heif-enc is
  installed). The cost per still is the difference of the medians.
- Clips: the two-clip 1080p30 wipe of video.py (each clip's frames decoded in a worker of its own).
Runs are interleaved, so that the machine's moods fall on both modes alike.
"""
import os, shutil, statistics, sys

from compare import PHOTOS, ROOT, SWEEP, sh, timed
from video import clip

WORK = os.path.join(ROOT, "Benchmarks", "work", "decode")
SCREENS = os.path.normpath(os.path.join(PHOTOS, "..", "ui"))


def stills(d):
    """12 MP inputs of three kinds, made once."""
    made = {}
    jpg = f"{d}/photo-12mp.jpg"
    if not os.path.exists(jpg):
        sh(f"ffmpeg -v error -y -i {PHOTOS}/bythewater.jpg -vf scale=4000:3000 -q:v 3 {jpg}")
    made["JPEG photo"] = jpg
    shots = sorted(f for f in os.listdir(SCREENS) if f.endswith(".png")) if os.path.isdir(SCREENS) else []
    if shots:
        png = f"{d}/screen-12mp.png"
        if not os.path.exists(png):
            sh(f"ffmpeg -v error -y -i {SCREENS}/{shots[0]} -vf scale=4000:3000:flags=neighbor {png}")
        made["PNG screenshot"] = png
    if shutil.which("heif-enc"):
        heic = f"{d}/photo-12mp.heic"
        if not os.path.exists(heic):
            sh(f"ffmpeg -v error -y -i {jpg} {d}/photo-12mp.png && heif-enc -q 80 -o {heic} {d}/photo-12mp.png")
        made["HEIC photo"] = heic
    return made


def main(runs=15):
    os.makedirs(WORK, exist_ok=True)
    d = WORK
    rows = []
    for name, path in stills(d).items():
        t = {"worker": [], "in-process": []}
        for _ in range(runs):
            for mode in t:
                t[mode].append(timed(f"{SWEEP} preview {path} --look noir --size 600x450 -o {d}/p.png --decode {mode} --quiet", 1))
        rows.append((name, statistics.median(t["worker"]), statistics.median(t["in-process"])))
    bef, aft = f"{d}/before-10.mp4", f"{d}/after-10.mp4"
    clip(os.path.join(PHOTOS, "bythewater.jpg"), bef, 10)
    clip(os.path.join(PHOTOS, "bythewater-graded.jpg"), aft, 10)
    opts = "--hold 0 --ease linear --no-handle --no-labels --hard-edge --crf 20 --encoder-preset medium --quiet"
    t = {"worker": [], "in-process": []}
    for _ in range(max(3, runs // 5)):
        for mode in t:
            t[mode].append(timed(f"{SWEEP} render {bef} {aft} -o {d}/v.mp4 {opts} --decode {mode}", 1))
    rows.append(("two 1080p30 10 s clips", statistics.median(t["worker"]), statistics.median(t["in-process"])))
    print(f"Decoding in a worker process against in process; medians of {runs} runs (clips: {max(3, runs // 5)})")
    print(f"{'input':24} {'worker s':>9} {'in-process s':>13} {'cost ms':>8} {'ratio':>6}")
    for name, w, i in rows:
        print(f"{name:24} {w:9.3f} {i:13.3f} {1000 * (w - i):8.1f} {w / i:6.3f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 15)
