#!/usr/bin/env python3
"""Scale: a 4K60 phone-like clip pair wiped to a 1080p MP4, sweep against the FFmpeg CLI doing
the same decode, scale and encode, same run; and sweep's peak memory on the pair and on 8K.

Usage: scale.py [runs] [h264|hevc] [seconds]   (Benchmarks/run.sh scale: 3 runs, H.264, 10 s)

The clips: 10 s, 3840x2160, 60 fps, H.264 High (tagged BT.709, a key frame a second, as a phone's
"most compatible" setting writes it): a pan over photo pair A with fresh grain on every frame, so
that each frame codes like a camera's; the after clip is the graded photo on the same path. The
8K clip: 2 s of the same at 7680x4320, 30 fps. With `hevc`, the 4K pair is HEVC Main (x265
`ultrafast`, 'hvc1', as most phones record by default) instead; `seconds` sets the pair's length.
The output: MP4 at 1920x1080, x264 medium CRF 20, yuv420p, a linear wipe over the whole clip
with no handle or labels.
- sweep: `sweep render before.mp4 after.mp4 -o x.mp4 --size 1920x1080 --hold 0 --ease linear
         --no-handle --no-labels --hard-edge --crf 20 --encoder-preset medium`;
- peer:  the FFmpeg CLI: each clip scaled to 1080p (bicubic, swscale's default), then
         xfade=transition=wipeleft over the whole length, same encoder settings.
Times: median of `runs` interleaved runs each, wall clock and CPU (user + system: on a shared
machine the steadier of the two). Memory: the largest peak resident set (VmHWM, as GNU time's
"Maximum resident set size" reports it) over those runs.
"""
import os, statistics, sys

from compare import PHOTOS, ROOT, SWEEP, sh

WORK = os.path.join(ROOT, "Benchmarks", "work", "scale")
X264 = "-c:v libx264 -preset medium -crf 20 -pix_fmt yuv420p"
OPTS = ("--size 1920x1080 --hold 0 --ease linear --no-handle --no-labels --hard-edge --crf 20 "
        "--encoder-preset medium --quiet")


CODERS = {"h264": "-c:v libx264 -preset ultrafast -crf 23",
          "hevc": "-c:v libx265 -preset ultrafast -crf 24 -x265-params log-level=error -tag:v hvc1"}


def clip(photo, out, width, height, fps, seconds, codec="h264"):
    """A pan across the photo at width x height, with per-frame grain, coded as a phone does (H.264)."""
    if os.path.exists(out):
        return
    wide = width * 3 // 2
    still = f"{out}.still.png"
    sh(f"ffmpeg -v error -y -i '{photo}' -vf scale={wide}:-2 -frames:v 1 {still}")
    travel = wide - width
    frames = fps * seconds
    # The still is decoded once and repeated in memory (an image input looped by the demuxer
    # is decoded again for every frame).
    sh(f"ffmpeg -v error -y -i {still} "
       f"-vf \"loop=loop={frames - 1}:size=1,setpts=N/{fps}/TB,crop={width}:{height}:x='{travel}*t/{seconds}':y='(ih-{height})/2',"
       f"scale=out_color_matrix=bt709:out_range=tv,format=yuv420p,noise=alls=8:allf=t\" -r {fps} -frames:v {frames} "
       f"-colorspace bt709 -color_primaries bt709 -color_trc bt709 "
       f"{CODERS[codec]} -g {fps} {out}")
    os.remove(still)


def run(cmd):
    """Wall seconds, CPU seconds (user + system) and peak RSS in KB of one run, by GNU time."""
    wall, user, system, peak = sh(f"/usr/bin/time -f '%e %U %S %M' {cmd}").stderr.strip().splitlines()[-1].split()
    return float(wall), float(user) + float(system), int(peak)


def main(runs=3, codec="h264", seconds=10):
    os.makedirs(WORK, exist_ok=True)
    d = WORK
    a, b = os.path.join(PHOTOS, "bythewater.jpg"), os.path.join(PHOTOS, "bythewater-graded.jpg")
    tag = ("" if codec == "h264" else f"-{codec}") + ("" if seconds == 10 else f"-{seconds}s")
    bef, aft = f"{d}/before-4k60{tag}.mp4", f"{d}/after-4k60{tag}.mp4"
    clip(a, bef, 3840, 2160, 60, seconds, codec)
    clip(b, aft, 3840, 2160, 60, seconds, codec)
    big = f"{d}/before-8k.mp4"
    clip(a, big, 7680, 4320, 30, 2)
    ours = f"{SWEEP} render {bef} {aft} -o {d}/ours.mp4 {OPTS}"
    peer = (f"ffmpeg -v error -y -i {bef} -i {aft} -filter_complex "
            f"'[0:v]scale=1920:1080[a];[1:v]scale=1920:1080[b];[a][b]xfade=transition=wipeleft:duration={seconds}:offset=0' "
            f"{X264} {d}/peer.mp4")
    t = {"sweep": [], "ffmpeg": []}
    for _ in range(runs):  # interleaved, so that the machine's moods fall on both alike
        for who, cmd in (("sweep", ours), ("ffmpeg", peer)):
            t[who].append(run(cmd))
    wall = {k: statistics.median(x[0] for x in v) for k, v in t.items()}
    cpu = {k: statistics.median(x[1] for x in v) for k, v in t.items()}
    rss = {k: max(x[2] for x in v) for k, v in t.items()}
    rss8k = run(f"{SWEEP} render {big} {big} -o {d}/ours-8k.mp4 {OPTS}")[2]
    frames = sh(f"ffprobe -v error -count_packets -select_streams v:0 -show_entries stream=nb_read_packets "
                f"-of csv=p=0 {d}/ours.mp4").stdout.strip()
    print(f"Scale: two 3840x2160 60 fps {seconds} s {'H.264' if codec == 'h264' else 'HEVC'} clips -> 1920x1080 MP4, linear wipe, x264 medium CRF 20; "
          f"median of {runs} runs (sweep wrote {frames} frames)")
    print(f"{'who':7} {'bytes':>9} {'wall s, each run':>26} {'wall s':>7} {'CPU s':>7} {'peak RSS MB':>12}")
    for who, out in (("sweep", "ours"), ("ffmpeg", "peer")):
        each = " ".join(f"{x[0]:.1f}" for x in t[who])
        print(f"{who:7} {os.path.getsize(f'{d}/{out}.mp4'):9d} {each:>26} {wall[who]:7.1f} {cpu[who]:7.1f} {rss[who] / 1024:12.1f}")
    print(f"sweep / ffmpeg: wall {wall['sweep'] / wall['ffmpeg']:.3f}, CPU {cpu['sweep'] / cpu['ffmpeg']:.3f}")
    print(f"sweep peak RSS, 7680x4320 30 fps 2 s H.264 clip against itself -> 1080p: {rss8k / 1024:.1f} MB")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3, sys.argv[2] if len(sys.argv) > 2 else "h264",
         int(sys.argv[3]) if len(sys.argv) > 3 else 10)
