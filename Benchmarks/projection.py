#!/usr/bin/env python3
"""Whether a size cap's quality attempt could be judged part-way: how far the bytes of a GIF
at a lower quality, projected from its first frames against the first attempt's (quality 90)
frame by frame, as SizeCap.estimate(_:frames:reference:) projects a stopped attempt, are off
the bytes it ends at.

usage: SWEEP=.build/release/sweep python3 Benchmarks/projection.py [--qualities 80,76,70,60,50,40]

The 4 s dissolves of capfit.py (photos, a sky, a UI page; 800 px). Prints, per pair and
quality, the projection's error after 20 %, 30 %, ..., 60 % of the frames. Renders are cached
in Benchmarks/work/projection. Stopping an attempt part-way as "under the 95 % that counts as
close enough" would need the error within about 2 % (a quality step near the fit moves a
dissolve's bytes 2-3 %)."""
import argparse, os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import capfit  # noqa: E402

SWEEP = os.environ.get("SWEEP", os.path.join(HERE, "..", ".build", "release", "sweep"))
WORK = os.path.join(HERE, "work", "projection")
SHARES = (0.2, 0.3, 0.4, 0.5, 0.6)


def frame_ends(path):
    """The file offset after each frame's image data, and the file's size."""
    d = open(path, "rb").read()
    flags = d[10]
    i = 13 + (3 * (2 << (flags & 7)) if flags & 0x80 else 0)
    ends = []
    while i < len(d) and d[i] != 0x3B:
        image = d[i] == 0x2C
        if image:  # descriptor, local table, code size, then sub-blocks
            f = d[i + 9]
            i += 10 + (3 * (2 << (f & 7)) if f & 0x80 else 0) + 1
        elif d[i] == 0x21:  # extension: label, then sub-blocks
            i += 2
        else:
            raise ValueError(f"{path}: unexpected block 0x{d[i]:02x} at {i}")
        while d[i]:
            i += d[i] + 1
        i += 1
        if image:
            ends.append(i)
    return ends, len(d)


def projected(ref, got, share):
    """SizeCap.estimate: the first frame as made, the later ones as the reference grew."""
    (r, r_total), (w, _) = ref, got
    k = max(1, int(share * len(w)))
    return w[0] + (w[k] - w[0]) * (r_total - r[0]) / (r[k] - r[0])


def render(a, b, q):
    out = os.path.join(WORK, f"{os.path.basename(a)}-{q}.gif")
    if not os.path.exists(out):
        # One picture (the sky) against itself with the vivid look, as sizecap.py renders it.
        sides = [a, b] if a != b else [a, "--look", "vivid"]
        subprocess.run([SWEEP, "render"] + sides + ["-o", out, "--reduce-motion", "dissolve", "--duration", "4",
                        "--quality", str(q)], check=True, capture_output=True)
    return frame_ends(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qualities", default="80,76,70,60,50,40")
    args = ap.parse_args()
    os.makedirs(WORK, exist_ok=True)
    print("| pair | quality | bytes (of quality 90's) | " + " | ".join(f"after {int(100 * s)} %" for s in SHARES) + " |")
    print("| --- | --- | --- |" + " --- |" * len(SHARES))
    worst = {s: 0.0 for s in SHARES}
    for name, (a, b) in capfit.PAIRS.items():
        a, b = os.path.join(capfit.FIX, a), os.path.join(capfit.FIX, b)
        ref = render(a, b, 90)
        for q in (int(x) for x in args.qualities.split(",")):
            got = render(a, b, q)
            errs = {s: projected(ref, got, s) / got[1] - 1 for s in SHARES}
            for s, e in errs.items():
                worst[s] = max(worst[s], abs(e))
            print(f"| {name} | {q} | {got[1]} ({got[1] / ref[1]:.2f}) | "
                  + " | ".join(f"{100 * errs[s]:+.1f} %" for s in SHARES) + " |", flush=True)
    print("\nlargest error: " + ", ".join(f"after {int(100 * s)} % {100 * worst[s]:.1f} %" for s in SHARES))


if __name__ == "__main__":
    main()
