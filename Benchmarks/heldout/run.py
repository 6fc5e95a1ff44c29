#!/usr/bin/env python3
"""GIF curves (gifcurves.py) on held-out pairs no setting was tuned on (ninth round): two web pages
(an analytics dashboard light -> dark, a docs page -> a redesign), a flat infographic, pixel art
(day -> night), smooth gradients other than a sky, and a page with a large photo (light -> dark);
since the eleventh round, three posterized photo pairs of at most 255 colours (make_posterized.py,
which needs scikit-image for two of its pictures); since the thirteenth, three noisy photos -> the clean
ones and a photo textured all over (make_noisy.py, scikit-image's pictures too); since the fourteenth,
three clean photo pairs (make_clean.py).

usage: python3 Benchmarks/heldout/run.py [gifcurves.py options, e.g. --pairs chart,mixed --json F]

The pages are screenshotted with Debian's chromium (headless, 1440x1080) and the rest drawn by
make_synth.py, once, into Benchmarks/work/heldout/pairs; results go to Benchmarks/work/heldout.
"""
import os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import gifcurves as g  # noqa: E402

WORK = os.path.join(os.path.dirname(HERE), "work", "heldout")
PAIRS = os.path.join(WORK, "pairs")
PAGES = {"ui-dashboard": ("dashboard-light", "dashboard-dark"), "ui-docs": ("docs-v1", "docs-v2"),
         "chart": ("chart-v1", "chart-v2"), "mixed": ("mixed-light", "mixed-dark")}


def make_pairs():
    for name, pages in PAGES.items():
        for which, page in zip(("before", "after"), pages):
            out = os.path.join(PAIRS, name, which + ".png")
            if not os.path.exists(out):
                os.makedirs(os.path.dirname(out), exist_ok=True)
                subprocess.run(["chromium", "--headless", "--no-sandbox", "--hide-scrollbars", "--window-size=1440,1080",
                                f"--screenshot={out}", f"file://{HERE}/html/{page}.html"],
                               check=True, capture_output=True)
    if not os.path.exists(os.path.join(PAIRS, "gradients2", "after.png")):
        subprocess.run([sys.executable, os.path.join(HERE, "make_synth.py"), PAIRS], check=True, capture_output=True)
    if not os.path.exists(os.path.join(PAIRS, "glow-poster", "after.png")):
        subprocess.run([sys.executable, os.path.join(HERE, "make_posterized.py"), PAIRS], check=True, capture_output=True)
    if not os.path.exists(os.path.join(PAIRS, "textured-ihc", "after.png")):
        subprocess.run([sys.executable, os.path.join(HERE, "make_noisy.py"), PAIRS], check=True, capture_output=True)
    if not os.path.exists(os.path.join(PAIRS, "clean-coffee", "after.png")):
        subprocess.run([sys.executable, os.path.join(HERE, "make_clean.py"), PAIRS], check=True, capture_output=True)


if __name__ == "__main__":
    make_pairs()
    names = g.add_pair_dir(PAIRS)
    if "--pairs" not in sys.argv:
        sys.argv += ["--pairs", ",".join(names)]
    if "--out" not in sys.argv:
        sys.argv += ["--out", WORK]
    g.main()
