#!/usr/bin/env python3
"""HDR clips: a wipe across two 4K HEVC 10-bit HLG 30 fps 10 s clips, tone-mapped to
SDR, sweep against the FFmpeg CLI, same run.

Usage: hdr.py [runs]   (Benchmarks/run.sh hdr)

The clips: a 10 s pan over photo pair A at 3840x2160, converted to HLG (BT.2020), HEVC Main 10;
the after clip is the graded photo on the same path. The output: MP4 at 1920x1080, x264 medium
CRF 20, a linear wipe over the whole clip with no handle or labels.
- peer:  the FFmpeg CLI at its best: each clip scaled to 1080p inside the first zscale (so the
         float tone-mapping runs on a quarter of the pixels), tone-mapped by the same chain,
         then xfade=transition=wipeleft;
- floor: the FFmpeg CLI decoding both clips, tone-mapping and encoding the before clip alone.
Quality: mean CIEDE2000 of sweep's first frame against the peer's chain on the same frame.
"""
import os, statistics, subprocess, sys

from compare import PHOTOS, ROOT, SWEEP, sh, timed

WORK = os.path.join(ROOT, "Benchmarks", "work", "hdr")
X264 = "-c:v libx264 -preset medium -crf 20 -pix_fmt yuv420p"
CHAIN = ("zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=hable:desat=0,"
         "zscale=t=bt709:m=bt709:r=tv,format=yuv420p")


def clip(photo, out, seconds=10):
    """A 4K pan across the photo, converted to HLG and coded as 10-bit HEVC, as a phone records it."""
    if os.path.exists(out):
        return
    travel = 5760 - 3840
    sh(f"ffmpeg -v error -y -loop 1 -framerate 30 -t {seconds} -i '{photo}' "
       f"-vf \"scale=5760:-2,crop=3840:2160:x='{travel}*t/{seconds}':y='(ih-2160)/2',format=gbrpf32le,"
       f"zscale=tin=iec61966-2-1:t=arib-std-b67:pin=bt709:p=bt2020:m=bt2020nc:r=tv:npl=100,format=yuv420p10le\" "
       f"-color_primaries bt2020 -color_trc arib-std-b67 -colorspace bt2020nc "
       f"-c:v libx265 -preset ultrafast -crf 18 -x265-params log-level=error -tag:v hvc1 {out}")


def delta_e(a_png, b_png):
    """Mean CIEDE2000 between two sRGB PNGs (scikit-image)."""
    import numpy as np
    from PIL import Image
    from skimage.color import deltaE_ciede2000, rgb2lab
    a = np.asarray(Image.open(a_png).convert("RGB")) / 255.0
    b = np.asarray(Image.open(b_png).convert("RGB")) / 255.0
    return float(deltaE_ciede2000(rgb2lab(a), rgb2lab(b)).mean())


def main(runs=3):
    os.makedirs(WORK, exist_ok=True)
    d = WORK
    bef, aft = f"{d}/before.mp4", f"{d}/after.mp4"
    clip(os.path.join(PHOTOS, "bythewater.jpg"), bef)
    clip(os.path.join(PHOTOS, "bythewater-graded.jpg"), aft)
    opts = "--size 1920x1080 --hold 0 --ease linear --no-handle --no-labels --hard-edge --crf 20 --encoder-preset medium --quiet"
    ours = f"{SWEEP} render {bef} {aft} -o {d}/ours.mp4 {opts}"
    first = CHAIN.replace("zscale=t=linear", "zscale=w=1920:h=1080:t=linear", 1)
    peer = (f"ffmpeg -v error -y -i {bef} -i {aft} -filter_complex "
            f"'[0:v]{first}[a];[1:v]{first}[b];[a][b]xfade=transition=wipeleft:duration=10:offset=0' {X264} {d}/peer.mp4")
    floor = (f"ffmpeg -v error -y -i {bef} -i {aft} -filter_complex '[1:v]nullsink;[0:v]{first}[v]' -map '[v]' "
             f"{X264} {d}/floor.mp4")
    t = {"ours": [], "peer": [], "floor": []}
    for _ in range(runs):  # interleaved, so that the machine's moods fall on all three alike
        for who, cmd in (("ours", ours), ("peer", peer), ("floor", floor)):
            t[who].append(timed(cmd, 1))
    t = {k: statistics.median(v) for k, v in t.items()}
    # Quality: sweep's first frame (the before clip whole) against FFmpeg's chain at full size, scaled alike.
    sh(f"{SWEEP} preview {bef} -o {d}/ours-still.png --size 1920x1080 --position 1 --no-handle --no-labels --quiet")
    sh(f"ffmpeg -v error -y -i {bef} -vf '{CHAIN},scale=1920:1080:flags=lanczos,format=rgb24' -frames:v 1 {d}/peer-still.png")
    de = delta_e(f"{d}/ours-still.png", f"{d}/peer-still.png")
    print(f"HDR: two 3840x2160 30 fps 10 s HEVC 10-bit HLG clips -> 1920x1080 SDR, linear wipe, x264 medium CRF 20; "
          f"median of {runs} runs")
    print(f"{'who':6} {'bytes':>9} {'time s':>7} {'vs floor':>9} {'peer / this':>11}")
    for who in ("ours", "floor", "peer"):
        print(f"{who:6} {os.path.getsize(f'{d}/{who}.mp4'):9d} {t[who]:7.2f} {t[who] / t['floor']:9.2f} {t['peer'] / t[who]:11.2f}")
    print(f"mean CIEDE2000, sweep's tone-mapped frame against FFmpeg's chain: {de:.2f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
