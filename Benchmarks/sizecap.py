#!/usr/bin/env python3
"""--max-bytes on GIFs: what each binary gives up to fit a budget, how much of the budget the
file uses, and how long the fit takes (every attempt is a whole render).

usage: SWEEPS=old:/path/a,new:.build/release/sweep python3 Benchmarks/sizecap.py [--pairs H,A,C,D] [--shares 0.75,0.5,0.3,0.1] [--runs 3]
       SWEEPS=... python3 Benchmarks/sizecap.py --dissolve [--held-out] [--shares 0.6] [--runs 1]

--dissolve: the 4 s dissolves of capfit.py (photos, a sky, a UI page; 800 px, 30 fps), each
capped at shares of its own uncapped size; prints, per binary, the time of the capped render
over one uncapped render of the same binary (in the same run), the bytes, and the bytes
against the first binary's. --held-out: instead, four dissolves the cap's search was not tuned
on (three photos with the vivid look, a noisy photo against its clean original).

Each pair renders at 720x720 with the default look (handle, tags, easing, 30 fps) once without a
cap; the caps are shares of that file's size. Binaries run in turn (alternating, for a noisy
machine); times are medians of --runs. Reads the settings from the note sweep prints."""
import argparse, os, re, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import capfit  # noqa: E402
import gifcurves as g  # noqa: E402


def render(binary, a, b, out, cap=None):
    cmd = [binary, "render", a, b, "-o", out, "--size", "720x720"] + (["--max-bytes", str(cap)] if cap else [])
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    dt = time.perf_counter() - t
    if p.returncode != 0:
        return None, dt, p.stderr.strip().splitlines()[-1] if p.stderr.strip() else f"exit {p.returncode}"
    note = next((l for l in p.stderr.splitlines() if "to fit under" in l), "")
    return os.path.getsize(out), dt, note.split(": ", 2)[-1] if note else "nothing given up"


# Dissolves the lossy search was not tuned on (2026-12-07): (before, after), after None for the vivid look.
HELD_OUT = {
    "coffee (vivid)": ("photos/coffee.png", None),
    "astronaut (vivid)": ("photos/astronaut.png", None),
    "chelsea (vivid)": ("photos/chelsea.png", None),
    "coffee, noisy -> clean": ("restoration/coffee-noisy.png", "photos/coffee.png"),
}


def dissolve(sweeps, shares, runs, held_out=False):
    work = tempfile.mkdtemp(prefix="sizecap-")
    pairs = HELD_OUT if held_out else capfit.PAIRS
    print("| pair | cap | " + " | ".join(f"{n}: capped / uncapped, bytes, given up" for n, _ in sweeps) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in sweeps) + " |")
    ratios = {n: [] for n, _ in sweeps}
    for name, (a, b) in pairs.items():
        a, b = os.path.join(capfit.FIX, a), os.path.join(capfit.FIX, b or a)
        base = [a, b] if a != b else [a, "--look", "vivid"]
        base += ["--reduce-motion", "dissolve", "--duration", "4"]
        out = {n: os.path.join(work, f"{n}.gif") for n, _ in sweeps}
        free = {n: [] for n, _ in sweeps}
        for _ in range(runs):
            for n, binary in sweeps:
                free[n].append(capfit.run([binary, "render"] + base + ["-o", out[n]])[0])
        size = os.path.getsize(out[sweeps[0][0]])
        for share in shares:
            cap = int(size * share)
            cells = []
            first = None
            for n, binary in sweeps:
                capped = []
                for _ in range(runs):
                    dt, note = capfit.run([binary, "render"] + base + ["-o", out[n], "--max-bytes", str(cap)])
                    capped.append(dt)
                got = os.path.getsize(out[n])
                first = first or got
                r = statistics.median(capped) / statistics.median(free[n])
                ratios[n].append(r)
                cells.append(f"{statistics.median(capped):.1f} s / {statistics.median(free[n]):.1f} s = **{r:.2f}x**, "
                             f"{got} ({100 * got / cap:.1f} % of cap, {got / first:.3f} of {sweeps[0][0]}'s), {note}")
            print(f"| {name} | {cap} ({share:g} of {size}) | " + " | ".join(cells) + " |", flush=True)
    for n, _ in sweeps:
        print(f"\n{n}: capped / uncapped median {statistics.median(ratios[n]):.2f}x, from {min(ratios[n]):.2f}x to {max(ratios[n]):.2f}x")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", default="H,A,C,D")
    ap.add_argument("--shares", default="")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--dissolve", action="store_true")
    ap.add_argument("--held-out", action="store_true")
    args = ap.parse_args()
    sweeps = [s.split(":", 1) for s in os.environ.get("SWEEPS", f"sweep:{g.SWEEP}").split(",")]
    if args.dissolve:
        return dissolve(sweeps, [float(x) for x in (args.shares or "0.6").split(",")], args.runs, args.held_out)
    args.shares = args.shares or "0.75,0.5,0.3,0.1"
    gen = os.path.join(HERE, "work", "gifcurves", "gen")
    work = tempfile.mkdtemp(prefix="sizecap-")
    print("| pair | cap | " + " | ".join(f"{n}: bytes (share of cap), given up, time" for n, _ in sweeps) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in sweeps) + " |")
    times = {n: [] for n, _ in sweeps}
    for pair in args.pairs.split(","):
        a, b = (g.source(p, gen) for p in g.PAIRS[pair])
        free, _, _ = render(sweeps[-1][1], a, b, os.path.join(work, "free.gif"))
        for share in (float(x) for x in args.shares.split(",")):
            cap = int(free * share)
            cells = {n: [] for n, _ in sweeps}
            for _ in range(args.runs):
                for n, binary in sweeps:
                    cells[n].append(render(binary, a, b, os.path.join(work, f"{n}.gif"), cap))
            row = []
            for n, _ in sweeps:
                size, _, note = cells[n][0]
                t = statistics.median(c[1] for c in cells[n])
                times[n].append(t)
                row.append(f"{size} ({100 * size / cap:.0f} %), {note}, {t:.1f} s" if size else f"failed: {note}")
            print(f"| {pair} | {cap} ({share:g} of {free}) | " + " | ".join(row) + " |", flush=True)
    first = sweeps[0][0]
    for n, _ in sweeps[1:]:
        ratios = [b / a for a, b in zip(times[first], times[n]) if a > 0]
        print(f"\n{n} against {first}: {sum(times[n]):.1f} s against {sum(times[first]):.1f} s in all; "
              f"time ratio median {statistics.median(ratios):.2f}, from {min(ratios):.2f} to {max(ratios):.2f}")


if __name__ == "__main__":
    main()
