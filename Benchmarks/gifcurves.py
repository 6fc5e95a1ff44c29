#!/usr/bin/env python3
"""GIF quality/size curves, sweep against FFmpeg + gifsicle at every setting, in one run.

usage: gifcurves.py [--pairs A,B,C,...] [--sweep "q100:--quality 100;q90:--quality 90;..."]
                    [--scielab-step N] [--ssim-step N] [--out DIR] [--plot FILE] [--json FILE]
                    [--same-frames] [--peer-scale]

Scene: DESIGN §7 plain wipe (no handle or labels), 720², 25 fps, 4 s, from the two source images.
Peer: ffmpeg palettegen → paletteuse (dither none / bayer / sierra2_4a, diff_mode=rectangle) →
gifsicle -O3 --lossy 0/20/40/80. Its frontier is the best S-CIELAB (or SSIM) it reaches at each size.
Quality: each side's decoded GIF against its own lossless frames (ours: sweep's PNG sequence of the
same render; the peer's: the same ffmpeg filter graph to raw). GIF frames are decoded with Pillow,
expanded by their delays into 25 fps slots and paired with the lossless frames BY INDEX (ffmpeg's
two-input filters mis-pair GIF frames). S-CIELAB mean ΔE comes from ../shared/tools/scielab.py, run
on raw-video files of the paired frames; SSIM is Gaussian (σ 1.5, 11×11 window as in Wang et al.),
per RGB channel, averaged; PSNR is over all paired frames. Flicker: the share of pixels that change
between decoded frames although the lossless frames did not.
With --same-frames the peer encodes sweep's lossless frames (its input and truth are sweep's), so
the two encoders are compared on identical pictures; its results are cached apart (DIR/<pair>-same).
With --peer-scale both sides start from FFmpeg's own 720² downscale of each source (bicubic, as its
wipe scales), so sweep's Lanczos-3 resampler, sharper and costlier to code, is out of the
comparison; results are cached apart (DIR/<pair>-fs).
"""
import argparse, json, os, shutil, statistics, subprocess, sys, time
import numpy as np
from scipy.ndimage import gaussian_filter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared"))
FIX = os.path.join(SHARED, "fixtures")
OWN = os.path.join(ROOT, "Benchmarks", "fixtures")
SCIELAB = os.path.join(SHARED, "tools", "scielab.py")
SWEEP = os.environ.get("SWEEP", os.path.join(ROOT, ".build", "release", "sweep"))
SIZE, FPS, DUR = 720, 25, 4

PAIRS = {
    "A": (f"{FIX}/photos/bythewater.jpg", f"{FIX}/photos/bythewater-graded.jpg"),
    "B": (f"{FIX}/photos/coldripple.jpg", f"{FIX}/photos/coldripple-graded.jpg"),
    "C": (f"{FIX}/ui/settings-light.png", f"{FIX}/ui/settings-dark.png"),
    "D": (f"{FIX}/restoration/coffee-noisy.png", f"{FIX}/photos/coffee.png"),
    "G": ("gen:gradient-before.png", "gen:gradient-after.png"),
    # Held out from tuning: photos no setting was chosen on.
    "E": (f"{FIX}/photos/eveningglow.jpg", "gen:eveningglow-graded.png"),
    "H": (f"{FIX}/photos/chelsea.png", f"{FIX}/photos/astronaut.png"),
    # Held out: a second UI pair (an invoices page, light → dark), to check the UI rules on a page they were not tuned on.
    # Screenshots of Benchmarks/fixtures/invoices-*.html, made with
    # `chromium --headless --hide-scrollbars --window-size=1440,1440 --screenshot=… file://…`.
    "U": (f"{OWN}/invoices-light.png", f"{OWN}/invoices-dark.png"),
}
PEER_DITHERS = ["none", "bayer", "sierra2_4a"]


def add_pair_dir(d):
    """Adds every d/<name>/before.png → after.png to PAIRS (held-out pairs); returns the names."""
    names = sorted(n for n in os.listdir(d) if os.path.exists(os.path.join(d, n, "after.png")))
    for name in names:
        PAIRS[name] = (os.path.join(d, name, "before.png"), os.path.join(d, name, "after.png"))
    return names


PEER_LOSSY = [0, 20, 40, 80]
SWEEP_DEFAULT = ";".join(f"q{q}:--quality {q}" for q in (100, 90, 80, 70, 60, 50, 40))


def sh(cmd, **kw):
    return subprocess.run(cmd, shell=True, check=True, capture_output=True, **kw)


def generated(name, gen_dir):
    """Pictures the benchmark makes itself: a smooth gradient pair (no grain, so any banding shows)
    and a graded version of a held-out photo."""
    from PIL import Image, ImageEnhance
    path = os.path.join(gen_dir, name)
    if os.path.exists(path):
        return path
    os.makedirs(gen_dir, exist_ok=True)
    h = w = 1440
    y, x = np.mgrid[0:h, 0:w] / (h - 1)
    if name == "gradient-before.png":
        # A sky: deep blue at the top to pale orange at the bottom, with a soft radial glow.
        t = np.clip(0.75 * y + 0.25 * x, 0, 1)
        top, bot = np.array([24, 52, 120.0]), np.array([250, 196, 150.0])
        rgb = top * (1 - t[..., None]) + bot * t[..., None]
        glow = np.exp(-(((x - 0.7) ** 2 + (y - 0.35) ** 2) / 0.05))[..., None]
        rgb = rgb * (1 - 0.5 * glow) + np.array([255, 240, 200.0]) * 0.5 * glow
    elif name == "gradient-after.png":
        # A dark UI-style redesign: a diagonal teal-to-violet gradient with a vignette.
        t = np.clip(0.5 * x + 0.5 * y, 0, 1)
        a, b = np.array([10, 70, 80.0]), np.array([70, 30, 110.0])
        rgb = a * (1 - t[..., None]) + b * t[..., None]
        r2 = (x - 0.5) ** 2 + (y - 0.5) ** 2
        rgb = rgb * (1 - 0.6 * r2[..., None])
    elif name == "eveningglow-graded.png":
        img = Image.open(f"{FIX}/photos/eveningglow.jpg").convert("RGB")
        img = ImageEnhance.Contrast(ImageEnhance.Color(img).enhance(0.6)).enhance(1.25)
        img.save(path)
        return path
    else:
        raise SystemExit(f"unknown generated picture {name}")
    Image.fromarray(np.clip(rgb + 0.5, 0, 255).astype(np.uint8)).save(path)
    return path


def source(p, gen_dir):
    return generated(p[4:], gen_dir) if p.startswith("gen:") else p


# How the peer brings each source to SIZE²: its wipe's input chain, and --peer-scale's downscale.
FIT = f"scale={SIZE}:{SIZE}:force_original_aspect_ratio=increase,crop={SIZE}:{SIZE},setsar=1,format=rgb24"


def ffmpeg_wipe(a, b):
    f = (f"[0:v]{FIT}[a];[1:v]{FIT}[b];"
         f"[a][b]xfade=transition=wipeleft:duration={DUR}:offset=0")
    inputs = f"-loop 1 -framerate {FPS} -t {DUR} -i '{a}' -loop 1 -framerate {FPS} -t {DUR} -i '{b}'"
    return f, inputs


def peer_scaled(path, d, side):
    """`path` brought to SIZE² by the peer's own input chain (``FIT``), as a PNG in `d`."""
    os.makedirs(d, exist_ok=True)
    out = os.path.join(d, side + ".png")
    sh(f"ffmpeg -v error -y -i '{path}' -vf '{FIT}' {out}")
    return out


def decode_gif(path):
    """Every 25 fps slot's picture, from the GIF's frames and their delays (a frame shown for
    8 cs fills two slots), as an (n, h, w, 3) array."""
    from PIL import Image
    im = Image.open(path)
    out, clock, slot_cs = [], 0, 100 // FPS
    for i in range(im.n_frames):
        im.seek(i)
        rgb = np.asarray(im.convert("RGB"))
        clock += im.info.get("duration", 40) // 10
        while len(out) * slot_cs < clock:
            out.append(rgb)
    return np.stack(out)


def ssim_gauss(a, b):
    """Mean SSIM (Wang et al. 2004; Gaussian σ 1.5, truncated to 11×11), per channel, averaged."""
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    vals = []
    for ch in range(3):
        x, y = a[..., ch].astype(np.float64), b[..., ch].astype(np.float64)
        f = lambda z: gaussian_filter(z, 1.5, truncate=3.5)
        mx, my = f(x), f(y)
        sxx, syy, sxy = f(x * x) - mx * mx, f(y * y) - my * my, f(x * y) - mx * my
        s = ((2 * mx * my + c1) * (2 * sxy + c2)) / ((mx * mx + my * my + c1) * (sxx + syy + c2))
        vals.append(s[5:-5, 5:-5].mean())
    return float(np.mean(vals))


class SCIELabMetric:
    """S-CIELAB mean ΔE (Zhang & Wandell 1997) with the parameters of ../shared/tools/scielab.py (60 px
    per degree, its opponent space and kernels), written independently and fast: each separable
    Gaussian with scipy's 'nearest' edges is one n×n matrix per axis, so filtering is two matrix
    products, and each lossless frame is filtered once per pair. `check()` compares it with
    scielab.py itself."""
    PPD = 60.0
    XYZ2OPP = np.array([[0.279, 0.72, -0.107], [-0.449, 0.29, -0.077], [0.086, -0.59, 0.501]])
    KERNELS = [([1.00327, 0.114416, -0.117686], [0.05, 0.225, 7.0]),
               ([0.616725, 0.383275], [0.0685, 0.826]),
               ([0.567885, 0.432115], [0.0920, 0.6451])]
    RGB2XYZ = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])

    def __init__(self, h, w):
        self.mats = []
        for ws, ss in self.KERNELS:
            sig = [s * self.PPD / np.sqrt(2) for s in ss]
            # Narrow kernels run as scipy's own filter; wide ones as matrices (the same weights).
            self.mats.append([(wt, sg, None if sg < 12 else (self.matrix(h, sg), self.matrix(w, sg)))
                              for wt, sg in zip(ws, sig)])
        self.cache = {}

    @staticmethod
    def matrix(n, sigma, truncate=4.0):
        r = int(truncate * sigma + 0.5)
        x = np.arange(-r, r + 1)
        k = np.exp(-0.5 * x * x / (sigma * sigma)); k /= k.sum()
        m = np.zeros((n, n))
        idx = np.clip(np.arange(n)[:, None] + x[None, :], 0, n - 1)
        np.add.at(m, (np.repeat(np.arange(n), len(x)), idx.ravel()), np.tile(k, n))
        return m

    def lab(self, rgb):
        c = rgb.astype(np.float64) / 255
        c = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
        opp = (c @ self.RGB2XYZ.T) @ self.XYZ2OPP.T
        out = np.empty_like(opp)
        for k in range(3):
            out[..., k] = sum(wt * (gaussian_filter(opp[..., k], sg, mode="nearest") if m is None
                                    else m[0] @ opp[..., k] @ m[1].T) for wt, sg, m in self.mats[k])
        xyz = out @ np.linalg.inv(self.XYZ2OPP).T
        t = xyz / np.array([0.9505, 1.0, 1.089])
        f = np.where(t > (6 / 29) ** 3, np.cbrt(np.maximum(t, 0)), t / (3 * (6 / 29) ** 2) + 4 / 29)
        return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], -1)

    def mean_de(self, enc, truth, key, step):
        des = []
        for i in range(0, min(len(enc), len(truth)), step):
            if (key, i) not in self.cache:
                self.cache[(key, i)] = self.lab(truth[i])
            des.append(np.sqrt(((self.lab(enc[i]) - self.cache[(key, i)]) ** 2).sum(-1)).ravel())
        d = np.concatenate(des)
        return float(d.mean()), float(np.percentile(d, 99))


def write_raw(frames, path):
    """Frames as rgb24 raw video in NUT, which ffmpeg (and so scielab.py) reads back frame for frame."""
    n, h, w, _ = frames.shape
    p = subprocess.Popen(["ffmpeg", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{w}x{h}",
                          "-framerate", str(FPS), "-i", "-", "-c:v", "rawvideo", "-pix_fmt", "rgb24", path],
                         stdin=subprocess.PIPE)
    p.communicate(frames.tobytes())
    assert p.returncode == 0


def measure(gif, truth, truth_key, sc, sc_step, ss_step):
    dec = decode_gif(gif)
    n = len(truth)
    if len(dec) != n:
        print(f"  warning: {gif}: {len(dec)} decoded slots for {n} frames", file=sys.stderr)
    n = min(n, len(dec))
    dec, tr = dec[:n], truth[:n]
    mse = float(np.mean((dec.astype(np.float64) - tr) ** 2))
    psnr = float("inf") if mse == 0 else 10 * np.log10(255 ** 2 / mse)
    ssim = float(np.mean([ssim_gauss(dec[i], tr[i]) for i in range(0, n, ss_step)]))
    still = np.all(tr[1:] == tr[:-1], axis=3)
    moved = np.any(dec[1:] != dec[:-1], axis=3)
    flicker = float((still & moved).sum()) / max(1, int(still.sum()))
    de, de99 = sc.mean_de(dec, tr, truth_key, sc_step)
    return dict(bytes=os.path.getsize(gif), de=de, de99=de99, ssim=ssim, psnr=psnr, flicker=flicker)


def lossless(cmd, work, name):
    sh(cmd)
    frames = decode_png_dir(os.path.join(work, name))
    raw = os.path.join(work, f"{name}.nut")
    write_raw(frames, raw)
    return frames, raw


def decode_png_dir(d):
    from PIL import Image
    files = sorted(f for f in os.listdir(d) if f.endswith(".png"))
    return np.stack([np.asarray(Image.open(os.path.join(d, f)).convert("RGB")) for f in files])


def run_pair(name, a, b, sweep_sets, args):
    work = os.path.join(args.out, name + ("-same" if args.same_frames else "") + ("-fs" if args.peer_scale else ""))
    cached = os.path.join(work, "peer.json")
    fresh = args.fresh_peer or not os.path.exists(cached)
    if fresh:
        shutil.rmtree(work, ignore_errors=True)
    shutil.rmtree(work + "/ours-frames", ignore_errors=True)
    os.makedirs(work + "/peer-frames", exist_ok=True); os.makedirs(work + "/ours-frames")
    opts = (f"--size {SIZE}x{SIZE} --fps {FPS} --duration {DUR} --hold 0 --ease linear --no-handle --no-labels "
            f"--hard-edge --quiet")
    ours_truth, ours_raw = lossless(f"{SWEEP} render '{a}' '{b}' -o {work}/ours-frames/f-%04d.png {opts}",
                                    work, "ours-frames")
    if args.same_frames:
        # The encoders alone: the peer's input is sweep's own lossless frames, its truth is ours.
        f, inputs, palette_input = "[0:v]format=rgb24", f"-framerate {FPS} -start_number 0 -i {work}/ours-frames/f-%04d.png", 1
    else:
        (f, inputs), palette_input = ffmpeg_wipe(a, b), 2
    rows = []
    if not fresh:
        with open(cached) as fh:
            rows = json.load(fh)
    else:
        if args.same_frames:
            peer_truth, peer_key = ours_truth, f"{name}-ours"
        else:
            peer_truth, _ = lossless(f"ffmpeg -v error -y {inputs} -filter_complex '{f}' {work}/peer-frames/f-%04d.png",
                                     work, "peer-frames")
            peer_key = f"{name}-peer"
        # Peer: palettegen once, paletteuse per dither, gifsicle per lossy level; each variant's
        # time is the sum of the stages it needs.
        t = time.perf_counter()
        sh(f"ffmpeg -v error -y {inputs} -filter_complex '{f},palettegen' {work}/pal.png")
        t_pal = time.perf_counter() - t
        for dither in PEER_DITHERS:
            t = time.perf_counter()
            sh(f"ffmpeg -v error -y {inputs} -i {work}/pal.png -filter_complex "
               f"'{f}[v];[v][{palette_input}:v]paletteuse=dither={dither}:diff_mode=rectangle' {work}/peer-{dither}-raw.gif")
            t_use = time.perf_counter() - t
            for lossy in PEER_LOSSY:
                out = f"{work}/peer-{dither}-{lossy}.gif"
                t = time.perf_counter()
                sh(f"gifsicle -O3 {'--lossy=%d' % lossy if lossy else ''} {work}/peer-{dither}-raw.gif -o {out}")
                t_gs = time.perf_counter() - t
                m = measure(out, peer_truth, peer_key, args.sc, args.scielab_step, args.ssim_step)
                m.update(who="peer", label=f"{dither}/{lossy}", time=t_pal + t_use + t_gs)
                rows.append(m)
        with open(cached, "w") as fh:
            json.dump(rows, fh, indent=1)
    for m in rows:
        print(f"  {name} peer  {m['label']:16}: {m['bytes']:8d} B  dE {m['de']:.4f}  SSIM {m['ssim']:.4f}  "
              f"PSNR {m['psnr']:.2f}  {m['time']:.2f} s", flush=True)
    for label, flags in sweep_sets:
        out = f"{work}/ours-{label}.gif"
        times = []
        for _ in range(args.runs):
            t = time.perf_counter()
            sh(f"{SWEEP} render '{a}' '{b}' -o {out} {opts} {flags}")
            times.append(time.perf_counter() - t)
        m = measure(out, ours_truth, f"{name}-ours", args.sc, args.scielab_step, args.ssim_step)
        m.update(who="sweep", label=label, time=statistics.median(times))
        if label == args.default and args.check_scielab:
            # The reference implementation on the same paired frames, as a check of ours.
            write_raw(decode_gif(out)[:len(ours_truth)], f"{work}/dec.nut")
            ref = sh(f"python3 '{SCIELAB}' {work}/dec.nut {ours_raw} {SIZE} {SIZE} {args.scielab_step}").stdout.split()
            print(f"  scielab.py check: {float(ref[0]):.4f} (ours {m['de']:.4f})", flush=True)
        rows.append(m)
        print(f"  {name} sweep {label:16}: {m['bytes']:8d} B  dE {m['de']:.4f}  SSIM {m['ssim']:.4f}  "
              f"PSNR {m['psnr']:.2f}  flicker {100 * m['flicker']:.3f}%  {m['time']:.2f} s", flush=True)
    return rows


def frontier(points, key, better):
    """The points no other point beats at equal or fewer bytes, sorted by bytes."""
    pts = sorted(points, key=lambda p: (p["bytes"], -p[key] if better == "high" else p[key]))
    out, best = [], None
    for p in pts:
        v = p[key]
        if best is None or (v > best if better == "high" else v < best):
            out.append(p); best = v
    return out


def bytes_to_reach(curve, key, target, better):
    """Fewest bytes on the curve (frontier points, interpolated linearly in log bytes) reaching
    `target` or better; None if it never does."""
    ok = lambda v: v >= target if better == "high" else v <= target
    prev = None
    for p in curve:
        if ok(p[key]):
            if prev is None or p[key] == prev[key]:
                return p["bytes"]
            frac = (target - prev[key]) / (p[key] - prev[key])
            return float(np.exp(np.log(prev["bytes"]) + frac * (np.log(p["bytes"]) - np.log(prev["bytes"]))))
        prev = p
    return None


def summary(name, rows, default_label):
    peer = [r for r in rows if r["who"] == "peer"]
    ours = [r for r in rows if r["who"] == "sweep"]
    res = {"pair": name}
    for key, better, limit in (("de", "low", 0.8), ("ssim", "high", 1.0)):
        pf, of = frontier(peer, key, better), frontier(ours, key, better)
        ratios = []
        for p in pf:
            need = bytes_to_reach(of, key, p[key], better)
            ratios.append(float("inf") if need is None else need / p["bytes"])
        res[f"{key}_ratios"] = ratios
        res[f"{key}_worst"] = max(ratios)
        res[f"{key}_met"] = max(ratios) <= limit
    pb = {k: (min(r[k] for r in peer) if k == "de" else max(r[k] for r in peer)) for k in ("de", "ssim")}
    ob = {k: (min(r[k] for r in ours) if k == "de" else max(r[k] for r in ours)) for k in ("de", "ssim")}
    res["best"] = dict(peer=pb, sweep=ob, met=ob["de"] <= pb["de"] and ob["ssim"] >= pb["ssim"])
    ref = next(r for r in peer if r["label"] == "sierra2_4a/0")
    d = next((r for r in ours if r["label"] == default_label), None)
    if d:
        res["default"] = dict(sweep=d, peer=ref, met=d["de"] <= ref["de"] and d["ssim"] >= ref["ssim"]
                              and d["bytes"] < ref["bytes"], time_ratio=d["time"] / ref["time"])
    res["time_ratio_max"] = max(r["time"] for r in ours) / min(r["time"] for r in peer)
    res["flicker_max"] = max(r["flicker"] for r in ours)
    return res


def plot(all_rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = list(all_rows)
    cols = min(4, len(names))
    rows_n = (len(names) + cols - 1) // cols
    fig, axes = plt.subplots(rows_n, cols, figsize=(4.2 * cols, 3.6 * rows_n), squeeze=False)
    for ax, name in zip(axes.ravel(), names):
        rows = all_rows[name]
        peer = [r for r in rows if r["who"] == "peer"]
        ours = sorted((r for r in rows if r["who"] == "sweep"), key=lambda r: r["bytes"])
        for dither, mk in zip(PEER_DITHERS, "os^"):
            pts = [r for r in peer if r["label"].startswith(dither + "/")]
            ax.scatter([r["bytes"] / 1e3 for r in pts], [r["de"] for r in pts], marker=mk, s=18, color="0.55",
                       label=f"peer {dither}")
        pf = frontier(peer, "de", "low")
        ax.plot([r["bytes"] / 1e3 for r in pf], [r["de"] for r in pf], color="0.35", lw=1, label="peer frontier")
        ax.plot([r["bytes"] / 1e3 for r in ours], [r["de"] for r in ours], "-o", color="C3", ms=4, label="sweep")
        for r in ours:
            ax.annotate(r["label"], (r["bytes"] / 1e3, r["de"]), fontsize=6, color="C3",
                        xytext=(3, 2), textcoords="offset points")
        ax.set_xscale("log"); ax.set_title(f"pair {name}"); ax.set_xlabel("KB"); ax.set_ylabel("S-CIELAB mean ΔE")
        ax.grid(alpha=0.3)
    for ax in axes.ravel()[len(names):]:
        ax.axis("off")
    axes[0][0].legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", default="A,B,C,D,G,E,H,U")
    ap.add_argument("--sweep", default=SWEEP_DEFAULT, help="label:flags;label:flags…")
    ap.add_argument("--default", default="q90", help="the label of sweep's default setting")
    ap.add_argument("--scielab-step", type=int, default=10)
    ap.add_argument("--fresh-peer", action="store_true", help="re-run the peer even if its results are cached")
    ap.add_argument("--ssim-step", type=int, default=4)
    ap.add_argument("--same-frames", action="store_true",
                    help="give the peer sweep's own lossless frames instead of its ffmpeg wipe (encoders alone)")
    ap.add_argument("--peer-scale", action="store_true",
                    help="both sides start from FFmpeg's 720² downscale of each source (no resampler difference)")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--out", default=os.path.join(ROOT, "Benchmarks", "work", "gifcurves"))
    ap.add_argument("--plot", default=None)
    ap.add_argument("--json", default=None)
    ap.add_argument("--check-scielab", action="store_true", help="also run scielab.py on sweep's default")
    ap.add_argument("--report", nargs="*", help="only summarise and plot earlier --json results")
    args = ap.parse_args()
    if args.report is not None:
        return report(args)
    sweep_sets = [tuple(s.split(":", 1)) for s in args.sweep.split(";") if s]
    gen_dir = os.path.join(args.out, "generated")
    args.sc = SCIELabMetric(SIZE, SIZE)
    all_rows, sums = {}, []
    for name in args.pairs.split(","):
        a, b = (source(p, gen_dir) for p in PAIRS[name])
        if args.peer_scale:
            a, b = (peer_scaled(p, os.path.join(args.out, name + "-fs-src"), side) for p, side in ((a, "before"), (b, "after")))
        all_rows[name] = run_pair(name, a, b, sweep_sets, args)
        s = summary(name, all_rows[name], args.default)
        sums.append(s)
        print_summary(s)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"rows": all_rows, "summary": sums}, fh, indent=1, default=float)
    if args.plot:
        plot(all_rows, args.plot)


def report(args):
    """Summaries, a Markdown table and the plot from one or more earlier runs' JSON."""
    all_rows = {}
    for path in args.report:
        with open(path) as fh:
            all_rows.update(json.load(fh)["rows"])
    f = lambda rs: " ".join("–" if r == float("inf") else f"{r:.2f}" for r in rs)
    print("| pair | bytes for peer's ΔE (≤ 0.8) | bytes for peer's SSIM (≤ 1.0) | best ΔE / SSIM, sweep | best ΔE / SSIM, peer "
          "| default vs sierra2_4a lossless (bytes, ΔE, SSIM) | time | flicker |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, rows in all_rows.items():
        s = summary(name, rows, args.default)
        print_summary(s)
        d = s.get("default")
        dd = (f"{d['sweep']['bytes'] / d['peer']['bytes']:.2f}×, {d['sweep']['de']:.3f} vs {d['peer']['de']:.3f}, "
              f"{d['sweep']['ssim']:.4f} vs {d['peer']['ssim']:.4f}") if d else "–"
        print(f"| {name} | {f(s['de_ratios'])} | {f(s['ssim_ratios'])} | {s['best']['sweep']['de']:.3f} / "
              f"{s['best']['sweep']['ssim']:.4f} | {s['best']['peer']['de']:.3f} / {s['best']['peer']['ssim']:.4f} | {dd} "
              f"| {d['time_ratio']:.2f}× | {100 * s['flicker_max']:.3f} % |")
    for name, rows in all_rows.items():
        print(f"\n{name}: who, setting, bytes, S-CIELAB ΔE, SSIM, PSNR dB, time s")
        for r in sorted(rows, key=lambda r: (r["who"], r["bytes"])):
            print(f"  {r['who']:5} {r['label']:14} {r['bytes']:8d} {r['de']:.3f} {r['ssim']:.4f} {r['psnr']:.2f} {r['time']:.2f}")
    if args.plot:
        plot(all_rows, args.plot)


def print_summary(s):
    f = lambda rs: " ".join("∞" if r == float("inf") else f"{r:.2f}" for r in rs)
    b = s["best"]
    print(f"pair {s['pair']}: bytes to equal the peer frontier — ΔE: {f(s['de_ratios'])} (≤0.8: "
          f"{'met' if s['de_met'] else 'NOT met'}); SSIM: {f(s['ssim_ratios'])} (≤1.0: "
          f"{'met' if s['ssim_met'] else 'NOT met'})")
    print(f"  best: sweep ΔE {b['sweep']['de']:.4f} SSIM {b['sweep']['ssim']:.4f}; peer ΔE {b['peer']['de']:.4f} "
          f"SSIM {b['peer']['ssim']:.4f} ({'met' if b['met'] else 'NOT met'})")
    if "default" in s:
        d = s["default"]
        print(f"  default: {d['sweep']['bytes']} B ΔE {d['sweep']['de']:.4f} SSIM {d['sweep']['ssim']:.4f} vs "
              f"sierra2_4a lossless {d['peer']['bytes']} B ΔE {d['peer']['de']:.4f} SSIM {d['peer']['ssim']:.4f} "
              f"({'met' if d['met'] else 'NOT met'}); time {d['time_ratio']:.3f}×")
    print(f"  slowest sweep / fastest peer: {s['time_ratio_max']:.3f}×; flicker max {100 * s['flicker_max']:.3f}%",
          flush=True)


if __name__ == "__main__":
    main()
