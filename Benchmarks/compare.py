#!/usr/bin/env python3
"""Runs one benchmark scenario (Benchmarks/README.md) for sweep and its peers, in the same run, and
prints a table with ratios. Usage: compare.py gif|mp4 [runs]"""
import os, re, shutil, statistics, subprocess, sys, time
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PHOTOS = os.path.normpath(os.path.join(ROOT, "..", "shared", "fixtures", "photos"))
WORK = os.path.join(ROOT, "Benchmarks", "work")
SWEEP = os.path.join(ROOT, ".build", "release", "sweep")
PAIRS = {"A": ("bythewater.jpg", "bythewater-graded.jpg"), "B": ("coldripple.jpg", "coldripple-graded.jpg")}


def sh(cmd, **kw):
    return subprocess.run(cmd, shell=True, check=True, capture_output=True, text=True, **kw)


def timed(cmd, runs):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        sh(cmd)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def metric(name, video, frames_pattern, fps, convert):
    graph = f"[0:v]fps={fps},{convert}[x];[1:v]{convert}[y];[x][y]{name}"
    out = subprocess.run(["ffmpeg", "-i", video, "-framerate", str(fps), "-i", frames_pattern, "-lavfi", graph,
                          "-f", "null", "-"], capture_output=True, text=True).stderr
    m = re.search(r"All:([0-9.]+)" if name == "ssim" else r"average:([0-9.inf]+)", out)
    return float(m.group(1)) if m else float("nan")


def raw_frames(path, size, fps=None):
    vf = f"-vf fps={fps}" if fps else ""
    data = subprocess.run(f"ffmpeg -v error -i '{path}' {vf} -f rawvideo -pix_fmt rgb24 -", shell=True,
                          capture_output=True, check=True).stdout
    return np.frombuffer(data, np.uint8).reshape(-1, size, size, 3)


def flicker(gif, frames_pattern, size, fps):
    """Share of pixels that change between frames in the GIF although the source did not."""
    g = raw_frames(gif, size, fps)
    s = raw_frames(frames_pattern, size)
    n = min(len(g), len(s))
    g, s = g[:n], s[:n]
    still = np.all(s[1:] == s[:-1], axis=3)
    moved = np.any(g[1:] != g[:-1], axis=3)
    total = still.sum()
    return float((still & moved).sum()) / max(1, total)


def ffmpeg_wipe(a, b, size, fps, dur):
    # The natural command: each still looped at the output rate, scaled and cropped, wiped.
    f = (f"[0:v]scale={size}:{size}:force_original_aspect_ratio=increase,crop={size}:{size},setsar=1[a];"
         f"[1:v]scale={size}:{size}:force_original_aspect_ratio=increase,crop={size}:{size},setsar=1[b];"
         f"[a][b]xfade=transition=wipeleft:duration={dur}:offset=0")
    inputs = f"-loop 1 -framerate {fps} -t {dur} -i '{a}' -loop 1 -framerate {fps} -t {dur} -i '{b}'"
    return f, inputs


def gif(runs=3):
    size, fps, dur = 720, 25, 4
    rows = []
    for pair, (a, b) in PAIRS.items():
        a, b = os.path.join(PHOTOS, a), os.path.join(PHOTOS, b)
        d = os.path.join(WORK, f"gif-{pair}")
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d + "/ours-frames"); os.makedirs(d + "/peer-frames")
        f, inputs = ffmpeg_wipe(a, b, size, fps, dur)
        peer = (f"ffmpeg -v error -y {inputs} -filter_complex '{f},palettegen' {d}/pal.png && "
                f"ffmpeg -v error -y {inputs} -i {d}/pal.png -filter_complex '{f}[v];[v][2:v]paletteuse=diff_mode=rectangle' {d}/peer-raw.gif && "
                f"gifsicle -O3 {d}/peer-raw.gif -o {d}/peer.gif")
        opts = f"--size {size}x{size} --fps {fps} --duration {dur} --hold 0 --ease linear --no-handle --no-labels --hard-edge"
        ours = f"{SWEEP} render '{a}' '{b}' -o {d}/ours.gif {opts} --quiet"
        t_peer = timed(peer, runs)
        t_ours = timed(ours, runs)
        sh(f"{SWEEP} render '{a}' '{b}' -o {d}/ours-frames/f-%04d.png {opts} --quiet")
        sh(f"ffmpeg -v error -y {inputs} -filter_complex '{f}' {d}/peer-frames/f-%04d.png")
        res = {}
        for who in ("ours", "peer"):
            g, fr = f"{d}/{who}.gif", f"{d}/{who}-frames/f-%04d.png"
            res[who] = dict(bytes=os.path.getsize(g), ssim=metric("ssim", g, fr, fps, "format=rgb24"),
                            psnr=metric("psnr", g, fr, fps, "format=rgb24"), flicker=flicker(g, fr, size, fps))
        res["ours"]["time"], res["peer"]["time"] = t_ours, t_peer
        rows.append((pair, res))
    print(f"GIF: {size}x{size}, {fps} fps, {dur} s linear wipe, no handle or labels; median of {runs} runs")
    print(f"{'pair':4} {'who':5} {'bytes':>9} {'ratio':>6} {'SSIM':>8} {'PSNR dB':>8} {'flicker':>8} {'time s':>7} {'ratio':>6}")
    for pair, res in rows:
        p = res["peer"]
        for who in ("ours", "peer"):
            r = res[who]
            print(f"{pair:4} {who:5} {r['bytes']:9d} {r['bytes'] / p['bytes']:6.2f} {r['ssim']:8.4f} {r['psnr']:8.2f} "
                  f"{100 * r['flicker']:7.3f}% {r['time']:7.2f} {r['time'] / p['time']:6.2f}")


CODECS = {
    "h264": ("mp4", "-c:v libx264 -preset medium -crf 20 -pix_fmt yuv420p -movflags +faststart"),
    "hevc": ("mp4", "-c:v libx265 -preset medium -crf 22 -pix_fmt yuv420p -tag:v hvc1 -x265-params log-level=error -movflags +faststart"),
    "vp9": ("webm", "-c:v libvpx-vp9 -crf 32 -b:v 0 -row-mt 1 -deadline good -cpu-used 2 -pix_fmt yuv420p"),
}


def other_codecs(runs=3):
    """HEVC and VP9: sweep against the CLI encoding the same frames from raw yuv420p."""
    size, fps, dur = 1080, 30, 4
    a, b = (os.path.join(PHOTOS, x) for x in PAIRS["A"])
    d = os.path.join(WORK, "mp4-A")
    if not os.path.exists(f"{d}/frames.yuv"):
        mp4(1)
    opts = f"--size {size}x{size} --fps {fps} --duration {dur} --hold 0 --ease linear --no-handle --no-labels --hard-edge"
    conv = "scale=in_color_matrix=bt709:in_range=tv:flags=bicubic+accurate_rnd+full_chroma_int,format=rgb24"
    print(f"Other codecs: same scene; floor = the CLI encoding our frames from raw yuv420p; median of {runs} runs")
    print(f"{'codec':6} {'who':6} {'bytes':>9} {'SSIM':>7} {'time s':>7} {'vs floor':>9}")
    for codec in ("hevc", "vp9"):
        ext, args = CODECS[codec]
        floor = (f"ffmpeg -v error -y -f rawvideo -pix_fmt yuv420p -s {size}x{size} -r {fps} -i {d}/frames.yuv {args} "
                 f"-color_primaries bt709 -color_trc bt709 -colorspace bt709 {d}/floor-{codec}.{ext}")
        ours = f"{SWEEP} render '{a}' '{b}' -o {d}/ours-{codec}.{ext} --codec {codec} {opts} --quiet"
        t = {"floor": timed(floor, runs), "ours": timed(ours, runs)}
        for who in ("ours", "floor"):
            path = f"{d}/{who}-{codec}.{ext}"
            ssim = metric("ssim", path, f"{d}/ours-frames/f-%04d.png", fps, conv)
            print(f"{codec:6} {who:6} {os.path.getsize(path):9d} {ssim:7.4f} {t[who]:7.2f} {t[who] / t['floor']:9.2f}")


def memory():
    """Peak RSS of a 60 s export against a 4 s export of the same 1080p scene."""
    a, b = (os.path.join(PHOTOS, x) for x in PAIRS["A"])
    d = os.path.join(WORK, "mem")
    os.makedirs(d, exist_ok=True)
    print("Memory: 1080x1080 30 fps MP4 with handle and labels, peak RSS (KB)")
    peaks = {}
    for dur in (4, 60):
        out = sh(f"/usr/bin/time -f '%M' {SWEEP} render '{a}' '{b}' -o {d}/m{dur}.mp4 --size 1080x1080 --fps 30 "
                 f"--duration {dur} --hold 0 --quiet").stderr.strip().splitlines()[-1]
        peaks[dur] = int(out)
        print(f"{dur:3d} s: {peaks[dur]} KB")
    print(f"60 s / 4 s: {peaks[60] / peaks[4]:.3f}")


def mp4(runs=3):
    size, fps, dur = 1080, 30, 4
    a, b = (os.path.join(PHOTOS, x) for x in PAIRS["A"])
    d = os.path.join(WORK, "mp4-A")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d + "/ours-frames")
    f, inputs = ffmpeg_wipe(a, b, size, fps, dur)
    x264 = "-c:v libx264 -preset medium -crf 20 -pix_fmt yuv420p"
    opts = f"--size {size}x{size} --fps {fps} --duration {dur} --hold 0 --ease linear --no-handle --no-labels --hard-edge"
    sh(f"{SWEEP} render '{a}' '{b}' -o {d}/ours-frames/f-%04d.png {opts} --quiet")
    # The floor: the same frames, already converted to yuv420p with BT.709, encoded by the CLI.
    sh(f"ffmpeg -v error -y -framerate {fps} -i {d}/ours-frames/f-%04d.png "
       f"-vf scale=out_color_matrix=bt709:out_range=tv:flags=bicubic+accurate_rnd+full_chroma_int,format=yuv420p "
       f"-f rawvideo {d}/frames.yuv")
    peer = f"ffmpeg -v error -y {inputs} -filter_complex '{f}' {x264} -movflags +faststart {d}/peer.mp4"
    floor = (f"ffmpeg -v error -y -f rawvideo -pix_fmt yuv420p -s {size}x{size} -r {fps} -i {d}/frames.yuv {x264} "
             f"-color_primaries bt709 -color_trc bt709 -colorspace bt709 -movflags +faststart {d}/floor.mp4")
    ours = f"{SWEEP} render '{a}' '{b}' -o {d}/ours.mp4 {opts} --quiet"
    t = {"peer": timed(peer, runs), "floor": timed(floor, runs), "ours": timed(ours, runs)}
    conv = "scale=in_color_matrix=bt709:in_range=tv:flags=bicubic+accurate_rnd+full_chroma_int,format=rgb24"
    print(f"MP4: {size}x{size}, {fps} fps, {dur} s linear wipe, x264 medium CRF 20 yuv420p; median of {runs} runs")
    print(f"{'who':6} {'bytes':>9} {'SSIM vs our frames':>19} {'time s':>7} {'vs floor':>9} {'peer / this':>11}")
    for who in ("ours", "floor", "peer"):
        path = f"{d}/{who}.mp4"
        ssim = metric("ssim", path, f"{d}/ours-frames/f-%04d.png", fps, conv) if who != "peer" else float("nan")
        print(f"{who:6} {os.path.getsize(path):9d} {ssim:19.4f} {t[who]:7.2f} {t[who] / t['floor']:9.2f} {t['peer'] / t[who]:11.2f}")


if __name__ == "__main__":
    kind = sys.argv[1] if len(sys.argv) > 1 else "gif"
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    {"gif": gif, "mp4": mp4, "codecs": other_codecs, "memory": lambda _: memory()}[kind](runs)
