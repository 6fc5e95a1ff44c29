#!/usr/bin/env python3
"""--max-bytes on videos: how many renders a cap takes, and how much of the budget the file
uses, for each binary in the same run.

usage: SWEEPS=old:/path/a,new:.build/release/sweep python3 Benchmarks/videocap.py [--shares 0.5,0.25,0.1] [--ext mp4,webm]

Each pair of capfit.py (photos, a sky, a UI page) renders a 4 s sweep at 720x720, 30 fps,
once without a cap; the caps are shares of that file's size. Prints per binary the capped
render's time over the uncapped one's, the bytes as a share of the cap, and the setting the
note says it took ("-" for a refusal). Binaries run in turn on each case."""
import argparse, os, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import capfit  # noqa: E402


def render(binary, base, out, cap=None):
    cmd = [binary] + base + ["-o", out] + (["--max-bytes", str(cap)] if cap else [])
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    dt = time.perf_counter() - t
    if p.returncode != 0:
        return None, dt, "refused"
    note = next((l.split(": ", 2)[-1] for l in p.stderr.splitlines() if "to fit under" in l), "as is")
    return os.path.getsize(out), dt, note


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shares", default="0.5,0.25,0.1")
    ap.add_argument("--ext", default="mp4")
    args = ap.parse_args()
    sweeps = [tuple(s.split(":", 1)) for s in os.environ.get("SWEEPS", "new:.build/release/sweep").split(",")]
    shares = [float(s) for s in args.shares.split(",")]
    work = tempfile.mkdtemp(prefix="videocap-")
    print("| pair | ext | cap | " + " | ".join(f"{n}: time / uncapped, bytes / cap, setting" for n, _ in sweeps) + " |")
    print("| --- | --- | --- | " + " | ".join("---" for _ in sweeps) + " |")
    ratios = {n: [] for n, _ in sweeps}
    uses = {n: [] for n, _ in sweeps}
    refused = {n: 0 for n, _ in sweeps}
    for ext in args.ext.split(","):
        for name, (a, b) in capfit.PAIRS.items():
            a, b = os.path.join(capfit.FIX, a), os.path.join(capfit.FIX, b)
            base = ["render", a, b] if a != b else ["render", a, "--look", "vivid"]
            base += ["--size", "720x720", "--duration", "4"]
            free = {}
            for n, binary in sweeps:
                size, dt, _ = render(binary, base, os.path.join(work, f"{n}-free.{ext}"))
                free[n] = (size, dt)
            for share in shares:
                cap = int(free[sweeps[0][0]][0] * share)
                cells = []
                for n, binary in sweeps:
                    size, dt, note = render(binary, base, os.path.join(work, f"{n}-cap.{ext}"), cap)
                    ratio = dt / free[n][1]
                    if size is None:
                        refused[n] += 1
                        cells.append(f"{ratio:.2f}x, refused")
                    else:
                        ratios[n].append(ratio)
                        uses[n].append(size / cap)
                        cells.append(f"{ratio:.2f}x, {size / cap:.0%}, {note}")
                print(f"| {name} | {ext} | {share:.0%} | " + " | ".join(cells) + " |", flush=True)
    for n, _ in sweeps:
        if ratios[n]:
            print(f"{n}: median time {statistics.median(ratios[n]):.2f}x one uncapped render, "
                  f"median bytes {statistics.median(uses[n]):.0%} of the cap, {refused[n]} refused")
        else:
            print(f"{n}: {refused[n]} refused")


if __name__ == "__main__":
    main()
