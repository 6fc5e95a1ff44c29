#!/usr/bin/env python3
"""The quality curve a GIF size cap searches along (QualityCurve.swift): measures how a GIF's
bytes fall from quality 90 to 40 on 25 pairs, as sweeps and as dissolves, fits the rows
QualityCurve.fitted holds, and says how many renders the quality search would take with them
against the typical curve, each pair left out of its own fit.

usage: SWEEP=.build/release/sweep python3 Benchmarks/qualitycurves.py [--check look-tour,spring-peek]
       SWEEP=... python3 Benchmarks/qualitycurves.py --check wipe-short,wipe-5fps,dissolve-short
       SWEEP=... python3 Benchmarks/qualitycurves.py --variants

Pairs: the four of capfit.py, sizecap.py's held-out four, the invoices page
(Benchmarks/fixtures) and the sixteen of Benchmarks/heldout (made once, as heldout/run.py
makes them). Each renders at 800 px, 4 s, the default look, at qualities 90, 85, ..., 40, two
at a time; the features (texture, held, smooth, coverage) come from a capped render's first
attempt with SWEEP_CAP_TRACE set. Results are cached in Benchmarks/work/qualitycurves.
--check: instead, measures six pairs under those presets (animations the fit never saw), or
short renders (1.5 s at 10 fps, 2 s at 5 fps), and prints the renders each curve takes there.
--variants: the search's rules tried on all of those bytes (an aim, a rounding, a narrower
inset, two qualities at once), and how far the picture's curve is off at quality 40.
Needs numpy. About 25 minutes for the fit.
"""
import argparse, concurrent.futures as cf, json, math, os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "heldout"))
import numpy as np  # noqa: E402

SWEEP = os.environ.get("SWEEP", os.path.join(HERE, "..", ".build", "release", "sweep"))
FIX = os.path.normpath(os.path.join(HERE, "..", "..", "shared", "fixtures"))
WORK = os.path.join(HERE, "work", "qualitycurves")
QUALITIES = list(range(90, 35, -5))
TYPICAL = [-1.16, -1.12, -1.08, -1.04, -0.99, -0.925, -0.835, -0.70, -0.465, -0.27, 0, 0.155, 0.445]
BLEND = (0.03, 0.18)  # QualityCurve.sweepToDissolve
# For --check: short renders (wider bands, fewer frames) the fit never saw.
SHORT = {"wipe-short": ["--duration", "1.5", "--fps", "10"], "wipe-5fps": ["--duration", "2", "--fps", "5"],
         "dissolve-short": ["--reduce-motion", "dissolve", "--duration", "1.5", "--fps", "10"]}
ANIMATIONS = {"wipe": ["--duration", "4"], "dissolve": ["--reduce-motion", "dissolve", "--duration", "4"]}


def pairs():
    import run as heldout  # Benchmarks/heldout/run.py: makes its pairs once
    heldout.make_pairs()
    p = {
        "bythewater": [f"{FIX}/photos/bythewater.jpg", f"{FIX}/photos/bythewater-graded.jpg"],
        "coldripple": [f"{FIX}/photos/coldripple.jpg", f"{FIX}/photos/coldripple-graded.jpg"],
        "sky": [f"{FIX}/photos/eveningglow.jpg", "--look", "vivid"],
        "settings": [f"{FIX}/ui/settings-light.png", f"{FIX}/ui/settings-dark.png"],
        "coffee-vivid": [f"{FIX}/photos/coffee.png", "--look", "vivid"],
        "astronaut-vivid": [f"{FIX}/photos/astronaut.png", "--look", "vivid"],
        "chelsea-vivid": [f"{FIX}/photos/chelsea.png", "--look", "vivid"],
        "coffee-noisy": [f"{FIX}/restoration/coffee-noisy.png", f"{FIX}/photos/coffee.png"],
        "invoices": [f"{HERE}/fixtures/invoices-light.png", f"{HERE}/fixtures/invoices-dark.png"],
    }
    for d in sorted(os.listdir(heldout.PAIRS)):
        p[d] = [f"{heldout.PAIRS}/{d}/before.png", f"{heldout.PAIRS}/{d}/after.png"]
    return p


def measure(name, args, animation, anim_args):
    """Bytes at each quality and the first attempt's features, cached."""
    cache = os.path.join(WORK, f"{animation}-{name}.json")
    r = json.load(open(cache)) if os.path.exists(cache) else {}
    if r.get("features"):
        return r
    out = os.path.join(WORK, f"{animation}-{name}.gif")
    for q in QUALITIES:
        if str(q) not in r:
            subprocess.run([SWEEP, "render"] + args + ["-o", out] + anim_args + ["--quality", str(q)], check=True, capture_output=True)
            r[str(q)] = os.path.getsize(out)
    # A cap the first attempt is over and the ladder can meet: the trace follows that attempt.
    env = dict(os.environ, SWEEP_CAP_TRACE="1")
    p = subprocess.Popen([SWEEP, "render"] + args + ["-o", out] + anim_args + ["--max-bytes", str(r["90"] // 2)],
                         stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env)
    for line in p.stderr:
        if "sweep: trace:" in line:
            w = line.split()
            # texture, held, smooth, coverage; whether the recording ran to the end (SizeCap uses a
            # part-way one's features too: they speak for the frames before)
            r["features"] = [float(w[i]) for i in (3, 5, 7, 9)]
            r["complete"] = w[11] == "1"
            break
    p.kill()
    p.wait()
    json.dump(r, open(cache, "w"))
    return r


def at(curve, q):
    x = min(max((q - 40) / 5, 0), len(curve) - 1)
    i = min(int(x), len(curve) - 2)
    return curve[i] + (x - i) * (curve[i + 1] - curve[i])


def quality(curve, q, ratio, scale=1.0):
    """SizeCap's QualityCurve.quality(from:log2Ratio:scale:)."""
    if scale <= 0.05:
        return 40 if ratio < 0 else 100
    want = at(curve, q) + ratio / scale
    if want <= curve[0]:
        return 40
    for i in range(len(curve) - 1):
        if want <= curve[i + 1]:
            return 40 + 5 * (i + (want - curve[i]) / (curve[i + 1] - curve[i]))
    return 100


def bytes_at(r, q):
    """Bytes at quality q, log-linear between the measured steps of 5."""
    if q >= 90:
        return r["90"]
    lo = (q // 5) * 5
    a, b = math.log(r[str(lo)]), math.log(r[str(lo + 5)])
    return math.exp(a + (q - lo) / 5 * (b - a))


def search(r, cap, curve, aim=0.97, nearest=False, relax=None):
    """The renders SizeCap's quality search makes (Attempts.searchQuality, nextQuality).
    Variants (--variants): `aim` (the share of the cap aimed at), `nearest` (a guess rounded
    to the nearest quality rather than down), `relax` (once a fit holds that share of the cap,
    the next guess kept one step in from either end of the bracket rather than a quarter)."""
    hi, lo, prev, tried, renders, target = (90, r["90"]), None, None, False, [], aim * cap
    for _ in range(8):
        below, above = lo[0] if lo else 39, hi[0] if hi else 91
        if above - below <= 1 or (lo and lo[1] >= 0.95 * cap):
            break
        if lo and hi:
            t = math.log(target / lo[1]) / math.log(hi[1] / lo[1]) if hi[1] > lo[1] else 0.5
            along = quality(curve, lo[0], t * (at(curve, hi[0]) - at(curve, lo[0])))
            inset = 1 if relax and lo[1] >= relax * cap else 0.25 * (hi[0] - lo[0])
            g = min(hi[0] - inset, max(lo[0] + inset, along))
        elif hi:
            if prev and prev[1] > hi[1] and prev[0] > hi[0] and not tried:
                d = at(curve, prev[0]) - at(curve, hi[0])
                tried = True
                g = quality(curve, hi[0], math.log2(target / hi[1]), math.log2(prev[1] / hi[1]) / d if d > 0 else 0)
            else:
                g = quality(curve, hi[0], math.log2(target / hi[1])) if prev is None else 40
        else:
            g = quality(curve, lo[0], math.log2(target / lo[1]))
        q = max(below + 1, min(above - 1, math.floor(g + 0.5) if nearest else math.floor(g)))
        b = bytes_at(r, q)
        renders.append(q)
        if b <= cap:
            lo = (q, b)
        else:
            prev, hi = hi, (q, b)
    if lo is None and hi[0] > 40:
        renders.append(40)
    return renders


def search_pair(r, cap, curve, spread=0.04):
    """Two qualities rendered at once a round, as the lossy search codes two budgets: before
    one fits, aiming `spread` (log2) either side of 97 % of the cap (the curve scaled to the
    attempts over it); once bracketed, at 99 % and 95.5 %. Returns the rounds."""
    hi, lo, overs, rounds, target = (90, r["90"]), None, [(90, r["90"])], [], 0.97 * cap
    for _ in range(8):
        below, above = lo[0] if lo else 39, hi[0]
        if above - below <= 1 or (lo and lo[1] >= 0.95 * cap):
            break

        def within(g):
            return max(below + 1, min(above - 1, math.floor(g)))
        if lo is None:
            scale = 1.0
            if len(overs) >= 2:
                (pq, pb), (hq, hb) = overs[-2], overs[-1]
                d = at(curve, pq) - at(curve, hq)
                scale = max(0.05, math.log2(pb / hb) / d) if d > 0 else 1.0
            a, b = (within(quality(curve, hi[0], math.log2(target * 2 ** s / hi[1]), scale)) for s in (spread, -spread))
        else:
            def along(t_bytes):
                t = math.log(t_bytes / lo[1]) / math.log(hi[1] / lo[1]) if hi[1] > lo[1] else 0.5
                return quality(curve, lo[0], t * (at(curve, hi[0]) - at(curve, lo[0])))
            a, b = within(along(0.99 * cap)), within(along(0.955 * cap))
        if b == a and a - 1 > below:
            b = a - 1
        qs = sorted({a, b}, reverse=True)
        rounds.append(qs)
        for q in qs:
            by = bytes_at(r, q)
            if by <= cap:
                lo = max(lo or (q, by), (q, by))
            elif q < hi[0]:
                hi = (q, by)
                overs.append(hi)
        if lo is None and hi[0] <= 40:
            break
    if lo is None and hi[0] > 40:
        rounds.append([40])
    return rounds


def log2s(r):
    return [math.log2(r[str(q)] / r["90"]) for q in range(40, 90, 5)]


def fit(rows):
    """Per animation, least squares of log2 bytes at 40..85 over [texture, held, smooth]."""
    use = [x for x in rows if x.get("features")]
    return {a: np.linalg.lstsq(np.array([x["features"][:3] for x in use if x["animation"] == a]),
                               np.array([log2s(x) for x in use if x["animation"] == a]), rcond=None)[0]
            for a in ANIMATIONS}


def curve(w, features):
    """QualityCurve(texture:held:smooth:coverage:)."""
    f = [min(max(v, 0), 1) for v in features]
    if not any(f[:3]):
        return TYPICAL  # nothing counted (SizeCap.curve)
    blend = min(max((f[3] - BLEND[0]) / (BLEND[1] - BLEND[0]), 0), 1)
    y = list((1 - blend) * (np.array(f[:3]) @ w["wipe"]) + blend * (np.array(f[:3]) @ w["dissolve"])) + [0.0]
    for i in range(9, -1, -1):
        y[i] = min(y[i], y[i + 1] - 0.005)
    return y + TYPICAL[11:]


def lossy_first(features, share):
    """SizeCap.lossyDepth: a textured picture's cap is searched with a larger lossy budget
    first. Counted here as met by it (the quality search runs too when that search fails)."""
    return -(0.3 + 1.6 * features[0]) <= math.log2(0.97 * share)


def renders(rows, w_for, shares=(0.75, 0.6, 0.45, 0.3)):
    total = {"typical": [], "fitted": []}
    for r in rows:
        if not r.get("features"):
            continue  # never traced: a render not recorded
        c = curve(w_for(r), r["features"])
        for share in shares:
            if lossy_first(r["features"], share):
                continue
            for key, cv in (("typical", TYPICAL), ("fitted", c)):
                total[key].append(len(search(r, share * r["90"], cv)))
    return total


CHECKED = ["bythewater", "coldripple", "settings", "chart", "clean-rocket", "noisy-glow"]
PAIR_COST = 1.6  # two whole renders at once on 2 cores, in renders (coldripple: 6.8 s against 4.2 s)


def variants(rows, checks, w):
    """The search's rules tried on the measured bytes: renders per search (a round of two at
    once costs PAIR_COST), the share met by one render, and the fits' bytes against the
    search's as it is; then how far the picture's curve is off at quality 40."""
    groups = {"fitted (left out)": [(r, fit([x for x in rows if x["name"] != r["name"]])) for r in rows],
              "presets": [(r, w) for r in checks if r["set"] in ("look-tour", "spring-peek")],
              "short": [(r, w) for r in checks if r["set"] in SHORT]}
    rules = {"as built (aim 97 %, rounded down, a quarter in)": {}, "aim 98 %": {"aim": 0.98},
             "rounded to nearest": {"nearest": True}, "one step in once within 10 %": {"relax": 0.9},
             "aim 98 %, nearest, one step in": {"aim": 0.98, "nearest": True, "relax": 0.9}}

    def searches(group):
        for r, wr in groups[group]:
            if not r.get("features"):
                continue
            c = curve(wr, r["features"])
            for share in (0.75, 0.6, 0.45, 0.3):
                if not lossy_first(r["features"], share):
                    yield r, c, share * r["90"]

    def best(r, qs, cap):
        return max([bytes_at(r, q) for q in qs if bytes_at(r, q) <= cap] or [0])
    print("| rule | " + " | ".join(f"{g}: renders, one render, bytes (least)" for g in groups) + " |")
    print("| --- |" + " --- |" * len(groups))
    for name, kw in list(rules.items()) + [("two qualities at once", None)]:
        cells = []
        for g in groups:
            n, one, ratio = [], [], []
            for r, c, cap in searches(g):
                base = best(r, search(r, cap, c), cap)
                if kw is None:
                    rounds = search_pair(r, cap, c)
                    n.append(sum(1 if len(x) == 1 else PAIR_COST for x in rounds))
                    got = best(r, [q for x in rounds for q in x], cap)
                else:
                    qs = search(r, cap, c, **kw)
                    n.append(len(qs))
                    got = best(r, qs, cap)
                one.append(n[-1] <= PAIR_COST)
                ratio.append(got / base if base else 1)
            cells.append(f"{np.mean(n):.2f}, {np.mean(one):.2f}, {min(ratio):.3f}")
        print(f"| {name} | " + " | ".join(cells) + " |")
    e = np.array([math.log2(r["40"] / r["90"]) - curve(wr, r["features"])[0]
                  for g in groups for r, wr in groups[g] if r.get("features")])
    print(f"\nlog2 bytes at quality 40 against the picture's curve, {len(e)} renders: mean {e.mean():+.3f}, "
          f"sd {e.std():.3f}, 5th to 95th percentile {np.percentile(e, 5):+.3f} to {np.percentile(e, 95):+.3f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", help="presets to check the fit on, e.g. look-tour,spring-peek")
    ap.add_argument("--variants", action="store_true", help="the search's rules tried on the measured bytes")
    args = ap.parse_args()
    os.makedirs(WORK, exist_ok=True)
    ps = pairs()
    jobs = [(n, a) for a in ANIMATIONS for n in ps]
    with cf.ThreadPoolExecutor(2) as ex:
        got = list(ex.map(lambda j: measure(j[0], ps[j[0]], j[1], ANIMATIONS[j[1]]), jobs))
    rows = [dict(r, name=n, animation=a) for (n, a), r in zip(jobs, got)]
    w = fit(rows)
    if args.variants:
        jobs = [(n, p) for p in ["look-tour", "spring-peek"] + list(SHORT) for n in CHECKED]
        with cf.ThreadPoolExecutor(2) as ex:
            got = list(ex.map(lambda j: measure(j[0], ps[j[0]], j[1], SHORT.get(j[1]) or ["--preset", j[1], "--duration", "4"]), jobs))
        variants(rows, [dict(r, name=n, set=p) for (n, p), r in zip(jobs, got)], w)
        return
    if args.check:
        jobs = [(n, p) for p in args.check.split(",") for n in CHECKED]
        with cf.ThreadPoolExecutor(2) as ex:
            got = list(ex.map(lambda j: measure(j[0], ps[j[0]], j[1], SHORT.get(j[1]) or ["--preset", j[1], "--duration", "4"]), jobs))
        t = renders([dict(r, name=n) for (n, _), r in zip(jobs, got)], lambda r: w)
        print(f"{args.check}: {len(t['typical'])} searches, renders (mean) typical {np.mean(t['typical']):.2f}, "
              f"fitted {np.mean(t['fitted']):.2f}")
        return
    print("QualityCurve.fitted (rows at quality 40, 45, ..., 85):")
    for a in ANIMATIONS:
        for name, row in zip(("texture", "held", "smooth"), w[a]):
            print(f"  {a} {name}: [" + ", ".join(f"{v:.3f}" for v in row) + "]")
    # Each pair left out of the fit it is searched with (both its animations).
    t = renders(rows, lambda r: fit([x for x in rows if x["name"] != r["name"]]))
    print(f"quality searches at caps of 75, 60, 45 and 30 % (those a lossy budget does not meet first): {len(t['typical'])}")
    print(f"renders (mean), each pair left out of its fit: typical {np.mean(t['typical']):.2f}, fitted {np.mean(t['fitted']):.2f}; "
          f"one render: {np.mean([n == 1 for n in t['typical']]):.2f} against {np.mean([n == 1 for n in t['fitted']]):.2f}")


if __name__ == "__main__":
    main()
