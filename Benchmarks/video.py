#!/usr/bin/env python3
"""Video inputs: a wipe across two 1080p30 clips, sweep against the FFmpeg CLI, same run.

Usage: video.py [runs]   (Benchmarks/run.sh video)

The clips: a 10 s camera pan over photo pair A at 1920x1080, 30 fps, H.264; the after clip is the
graded photo on the same path. The output: MP4, x264 medium CRF 20, yuv420p, a linear wipe over
the whole clip with no handle or labels (xfade draws none).
- peer:  the FFmpeg CLI, xfade=transition=wipeleft over the whole length;
- floor: the FFmpeg CLI decoding both clips and encoding the before clip unchanged, same settings.
Quality: RGB SSIM of each output against its own uncompressed frames (ours: sweep's PNG-sequence
output of the same render; the floor's: the before clip itself), frames paired by index.
Memory: peak RSS of sweep on a 60 s pair against the 10 s pair.
"""
import os, shutil, statistics, subprocess, sys

from compare import PHOTOS, ROOT, SWEEP, sh, timed

WORK = os.path.join(ROOT, "Benchmarks", "work", "video")
X264 = "-c:v libx264 -preset medium -crf 20 -pix_fmt yuv420p"


def clip(photo, out, seconds):
    """A pan across the photo (scaled to 3840 wide) at 1080p30, as a camera would record it."""
    if os.path.exists(out):
        return
    travel = 3840 - 1920
    # Tagged BT.709, as HD cameras record (a JPEG's BT.601 would otherwise carry over).
    sh(f"ffmpeg -v error -y -loop 1 -framerate 30 -t {seconds} -i '{photo}' "
       f"-vf \"scale=3840:-2,crop=1920:1080:x='{travel}*t/{seconds}':y='(ih-1080)/2',"
       f"scale=out_color_matrix=bt709:out_range=tv,format=yuv420p\" "
       f"-colorspace bt709 -color_primaries bt709 -color_trc bt709 "
       f"-c:v libx264 -preset fast -crf 16 -g 60 {out}")


def ssim(video, reference, ref_is_frames=False):
    conv = "scale=in_color_matrix=bt709:in_range=tv:flags=bicubic+accurate_rnd+full_chroma_int,format=rgb24"
    ref = f"-framerate 30 -i {reference}" if ref_is_frames else f"-i {reference}"
    rconv = "format=rgb24" if ref_is_frames else conv
    out = subprocess.run(f"ffmpeg -i {video} {ref} -lavfi '[0:v]{conv}[x];[1:v]{rconv}[y];[x][y]ssim' -f null -",
                         shell=True, capture_output=True, text=True).stderr
    return float(out.rsplit("All:", 1)[1].split()[0])


def peak_kb(cmd):
    return int(sh(f"/usr/bin/time -f '%M' {cmd}").stderr.strip().splitlines()[-1])


def main(runs=3):
    os.makedirs(WORK, exist_ok=True)
    d = WORK
    a, b = os.path.join(PHOTOS, "bythewater.jpg"), os.path.join(PHOTOS, "bythewater-graded.jpg")
    for secs in (10, 60):
        clip(a, f"{d}/before-{secs}.mp4", secs)
        clip(b, f"{d}/after-{secs}.mp4", secs)
    bef, aft = f"{d}/before-10.mp4", f"{d}/after-10.mp4"
    opts = "--hold 0 --ease linear --no-handle --no-labels --hard-edge --crf 20 --encoder-preset medium --quiet"
    ours = f"{SWEEP} render {bef} {aft} -o {d}/ours.mp4 {opts}"
    peer = (f"ffmpeg -v error -y -i {bef} -i {aft} -filter_complex "
            f"'[0:v][1:v]xfade=transition=wipeleft:duration=10:offset=0' {X264} {d}/peer.mp4")
    floor = (f"ffmpeg -v error -y -i {bef} -i {aft} -filter_complex '[1:v]nullsink;[0:v]null[v]' -map '[v]' "
             f"{X264} {d}/floor.mp4")
    t = {"ours": [], "peer": [], "floor": []}
    for _ in range(runs):  # interleaved, so that the machine's moods fall on all three alike
        for who, cmd in (("ours", ours), ("peer", peer), ("floor", floor)):
            t[who].append(timed(cmd, 1))
    t = {k: statistics.median(v) for k, v in t.items()}
    frames = f"{d}/frames"
    shutil.rmtree(frames, ignore_errors=True)
    os.makedirs(frames)
    sh(f"{SWEEP} render {bef} {aft} -o {frames}/f-%04d.png {opts}")
    q = {"ours": ssim(f"{d}/ours.mp4", f"{frames}/f-%04d.png", True), "floor": ssim(f"{d}/floor.mp4", bef),
         "peer": float("nan")}
    shutil.rmtree(frames, ignore_errors=True)
    print(f"Video inputs: two 1920x1080 30 fps 10 s H.264 clips, linear wipe, x264 medium CRF 20; median of {runs} runs")
    print(f"{'who':6} {'bytes':>9} {'RGB SSIM':>9} {'time s':>7} {'vs floor':>9} {'peer / this':>11}")
    for who in ("ours", "floor", "peer"):
        print(f"{who:6} {os.path.getsize(f'{d}/{who}.mp4'):9d} {q[who]:9.4f} {t[who]:7.2f} {t[who] / t['floor']:9.2f} "
              f"{t['peer'] / t[who]:11.2f}")
    m10 = peak_kb(f"{SWEEP} render {bef} {aft} -o {d}/m10.mp4 {opts}")
    m60 = peak_kb(f"{SWEEP} render {d}/before-60.mp4 {d}/after-60.mp4 -o {d}/m60.mp4 {opts}")
    print(f"peak RSS: 10 s {m10} KB, 60 s {m60} KB, ratio {m60 / m10:.3f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
