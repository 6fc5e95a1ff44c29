#!/usr/bin/env python3
"""Time to fit under a size cap against the time of one uncapped render of the same settings
(targets: at most 2.5x on a 4 s photo dissolve under 1 MB, at most 3x on a 44 s clip under
the github-readme format; docs/decisions/size-cap.md).

usage: python3 Benchmarks/capfit.py [--sweep .build/release/sweep] [--runs 3] [--only dissolve|clip]

The dissolve runs on several pairs (photos, a sky, a UI screenshot light -> dark); the clip
is generated once with FFmpeg (a slow zoom over a photo with film grain, 44 s at 30 fps,
and the same graded) into Benchmarks/work/. Medians of --runs (the clip: one run)."""
import argparse, os, statistics, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FIX = os.path.join(ROOT, "..", "shared", "fixtures")
WORK = os.path.join(HERE, "work", "capfit")
PAIRS = {
    "bythewater": ("photos/bythewater.jpg", "photos/bythewater-graded.jpg"),
    "coldripple": ("photos/coldripple.jpg", "photos/coldripple-graded.jpg"),
    "eveningglow (sky)": ("photos/eveningglow.jpg", "photos/eveningglow.jpg"),
    "settings (UI)": ("ui/settings-light.png", "ui/settings-dark.png"),
}


def run(cmd):
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    dt = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr}")
    note = next((l.split(": ", 2)[-1] for l in p.stderr.splitlines() if "to fit under" in l), "nothing given up")
    return dt, note


def clip():
    os.makedirs(WORK, exist_ok=True)
    a, b = os.path.join(WORK, "clip44.mp4"), os.path.join(WORK, "clip44-graded.mp4")
    if not os.path.exists(b):
        src = os.path.join(FIX, "photos", "eveningglow.jpg")
        vf = ("scale=1920:-2,zoompan=z='1+0.0015*on':x='iw/2-(iw/zoom/2)+40*sin(on/50)':y='ih/2-(ih/zoom/2)'"
              ":d=1:s=1280x720:fps=30,noise=alls=6:allf=t")
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-loop", "1", "-i", src, "-vf", vf, "-frames:v", "1320",
                        "-c:v", "libx264", "-preset", "veryfast", "-crf", "20", "-pix_fmt", "yuv420p", a], check=True)
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", a, "-vf", "eq=contrast=1.2:saturation=1.4:brightness=0.03",
                        "-c:v", "libx264", "-preset", "veryfast", "-crf", "20", b], check=True)
    return a, b


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sweep", default=os.path.join(ROOT, ".build", "release", "sweep"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    out = os.path.join(WORK, "out.gif")
    os.makedirs(WORK, exist_ok=True)
    rows = []
    if args.only in ("", "dissolve"):
        for name, (a, b) in PAIRS.items():
            a, b = os.path.join(FIX, a), os.path.join(FIX, b)
            base = ["render", a, b, "-o", out, "--reduce-motion", "dissolve", "--duration", "4"]
            if a == b:
                base = ["render", a, "--look", "vivid", "-o", out, "--reduce-motion", "dissolve", "--duration", "4"]
            free, capped, note = [], [], ""
            for _ in range(args.runs):
                free.append(run([args.sweep] + base)[0])
                dt, note = run([args.sweep] + base + ["--max-bytes", "1MB"])
                capped.append(dt)
            rows.append((f"4 s dissolve, {name}, 1 MB", statistics.median(free), statistics.median(capped), os.path.getsize(out), note))
    if args.only in ("", "clip"):
        a, b = clip()
        free, _ = run([args.sweep, "render", a, b, "-o", out, "--size", "800x", "--fps", "20"])
        capped, note = run([args.sweep, "render", a, b, "-o", out, "--format", "github-readme"])
        rows.append(("44 s clip, github-readme (10 MB)", free, capped, os.path.getsize(out), note))
    print("| scenario | uncapped | capped | ratio | bytes | given up |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, f, c, size, note in rows:
        print(f"| {name} | {f:.1f} s | {c:.1f} s | {c / f:.2f}x | {size} | {note} |", flush=True)


if __name__ == "__main__":
    main()
