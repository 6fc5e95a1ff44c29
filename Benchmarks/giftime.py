#!/usr/bin/env python3
"""Back-to-back GIF timing: sweep's default against the peer's sierra2_4a lossless pipeline.

The scene and pairs are gifcurves.py's (DESIGN §7 plain wipe, 720², 25 fps, 4 s). Each round
runs sweep's default render, then the peer's palettegen → paletteuse=dither=sierra2_4a →
gifsicle -O3, so both share the machine's state; the table gives medians and their ratio.

    SWEEP=.build/release/sweep python3 Benchmarks/giftime.py --pairs H,D,A,C --runs 3
    python3 Benchmarks/giftime.py --pair-dir Benchmarks/work/heldout/pairs --pairs glow-poster,B --runs 3
"""
import argparse, os, statistics, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gifcurves as g  # noqa: E402


def timed(cmd):
    start = time.perf_counter()
    g.sh(cmd)
    return time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", default="A,B,C,D,G,E,H")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out", default=os.path.join(g.ROOT, "Benchmarks", "work", "giftime"))
    ap.add_argument("--pair-dir", help="also time DIR/<name>/before.png → after.png (e.g. the held-out pairs "
                    "heldout/run.py makes in Benchmarks/work/heldout/pairs)")
    args = ap.parse_args()
    if args.pair_dir:
        g.add_pair_dir(args.pair_dir)
    sweep = os.environ.get("SWEEP", os.path.join(g.ROOT, ".build", "release", "sweep"))
    os.makedirs(args.out, exist_ok=True)
    gen_dir = os.path.join(args.out, "generated")
    opts = (f"--size {g.SIZE}x{g.SIZE} --fps {g.FPS} --duration {g.DUR} --hold 0 --ease linear "
            "--no-handle --no-labels --hard-edge --quiet")
    print("| pair | sweep default, s | peer sierra2_4a lossless, s | ratio |")
    print("| --- | --- | --- | --- |")
    for name in args.pairs.split(","):
        a, b = (g.source(p, gen_dir) for p in g.PAIRS[name])
        f, inputs = g.ffmpeg_wipe(a, b)
        w = args.out
        ours, peer = [], []
        for _ in range(args.runs):
            ours.append(timed(f"'{sweep}' render '{a}' '{b}' -o {w}/sweep.gif {opts}"))
            peer.append(
                timed(f"ffmpeg -v error -y {inputs} -filter_complex '{f},palettegen' {w}/pal.png")
                + timed(f"ffmpeg -v error -y {inputs} -i {w}/pal.png -filter_complex "
                        f"'{f}[v];[v][2:v]paletteuse=dither=sierra2_4a:diff_mode=rectangle' {w}/raw.gif")
                + timed(f"gifsicle -O3 {w}/raw.gif -o {w}/peer.gif"))
        s, p = statistics.median(ours), statistics.median(peer)
        print(f"| {name} | {s:.2f} | {p:.2f} | {s / p:.3f} |", flush=True)


if __name__ == "__main__":
    main()
