"""The interactive page (sweep render … -o page.html) in a real browser: Debian's chromium
driven by Playwright, every page opened from file://.

Run by Tests/browser/run.sh (from `make test`); SWEEP_BIN names the sweep binary.
"""
import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
SWEEP = os.environ.get("SWEEP_BIN", str(ROOT / ".build/debug/sweep"))
IMAGES = ROOT / "Tests/Fixtures/images"
BEFORE, AFTER = str(IMAGES / "jpeg-baseline.jpg"), str(IMAGES / "orient-6.jpg")
SIZE = ["--size", "400x300"]
REPORT = ROOT / ".build/browser-report.txt"

# Pixel tolerance, in 8-bit levels, for the element against `sweep preview` of the same spec.
# Away from text the two should agree to rounding: the sides are the same PNG pixels, the
# looks are the same 3x4 map (float in Chromium, 16-bit fixed point in sweep), the split,
# divider and knob are the same geometry anti-aliased by coverage. What differs is how
# each rasteriser antialiases the knob's circle and arrow, blurs its shadow (Skia's box
# approximation against a true Gaussian) and rounds the frame's corners; those touch a few
# hundred pixels by up to ~50 levels. Measured masked means are 0.00-0.06 levels (a plain
# wipe is exact; random-colour pictures with looks give 0.015, p99 0); 0.25 leaves room for
# another Chromium release while failing on any real shift (a look off by 1 % or a split
# off by one pixel on these pictures costs more than that on its own).
MASKED_MEAN = 0.25
# Including the text of the tags and the pause button (Chromium and Pango lay text out
# differently) the whole element still agrees to within 3 levels on average.
FULL_MEAN = 3.0


def sweep(*args):
    subprocess.run([SWEEP, *args, "-q"], check=True)


@pytest.fixture(scope="session")
def out(tmp_path_factory):
    return tmp_path_factory.mktemp("pages")


class Watched:
    """A page opened from file:// that records requests, console errors and CSP violations."""

    def __init__(self, browser, path, **context):
        options = {"viewport": {"width": 900, "height": 700}, "device_scale_factor": 1, **context}
        self.context = browser.new_context(**options)
        self.page = self.context.new_page()
        self.requests, self.errors = [], []
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("console", lambda m: m.type in ("error", "warning") and self.errors.append(m.text))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.add_init_script("window.__csp=[];document.addEventListener('securitypolicyviolation',"
                                  "e=>window.__csp.push(e.violatedDirective+' '+e.blockedURI))")
        self.page.goto(Path(path).as_uri())
        self.page.wait_for_function("document.querySelector('sweep-compare')?.F")

    def js(self, script, arg=None):
        return self.page.evaluate(script, arg)

    def state(self):
        return self.js("()=>{const e=document.querySelector('sweep-compare');return {p:e.position,playing:e.playing,"
                       "now:+e.F.getAttribute('aria-valuenow'),text:e.F.getAttribute('aria-valuetext')}}")

    def frame_box(self):
        return self.page.locator(".sc-f").bounding_box()

    def close(self):
        self.context.close()


@pytest.fixture
def opened(browser, closing):
    return closing(lambda path, **context: Watched(browser, path, **context))


def render(out, name, *args, sides=(BEFORE, AFTER)):
    path = out / name
    sweep("render", *sides, *SIZE, "-o", str(path), *args)
    return path


@pytest.fixture(scope="session")
def noise(out):
    """Two 400x300 pictures of random colours over gradients: every pixel differs from its
    neighbours, so a look or a split off by a little shows everywhere, not only at edges."""
    rng = np.random.default_rng(17)
    y, x = np.mgrid[0:300, 0:400]
    paths = []
    for i, tint in enumerate([(1.0, 0.6, 0.2), (0.2, 0.5, 1.0)]):
        base = np.stack([x / 400 * 255 * tint[0], y / 300 * 255 * tint[1], (x + y) / 700 * 255 * tint[2]], axis=2)
        img = np.clip(base + rng.normal(0, 40, base.shape), 0, 255).astype(np.uint8)
        path = out / f"noise-{i}.png"
        Image.fromarray(img).save(path)
        paths.append(str(path))
    return tuple(paths)


def report(line):
    with REPORT.open("a") as f:
        f.write(line + "\n")


# --- No network, no errors -------------------------------------------------------------

@pytest.mark.parametrize("args", [[], ["--retina", "--poster", "--preset", "look-tour", "--rtl"]], ids=["plain", "retina-poster-looks"])
def test_no_request_leaves_the_page(out, opened, args):
    path = render(out, f"net-{len(args)}.html", *args)
    w = opened(path)
    w.page.wait_for_timeout(700)                      # let it animate
    box = w.frame_box()
    w.page.mouse.click(box["x"] + box["width"] * 0.3, box["y"] + box["height"] / 2)
    w.page.keyboard.press("ArrowRight")
    w.page.wait_for_timeout(100)
    bad = [u for u in w.requests if not (u.startswith("file:") or u.startswith("data:"))]
    assert bad == []
    assert w.errors == []
    assert w.js("()=>window.__csp") == []
    html = path.read_text()
    assert "Content-Security-Policy" in html and "default-src 'none'" in html


# --- The same look as the renderer ------------------------------------------------------

PIXEL_CASES = [
    ("ltr", [], [0.5, 0.3, 0.3333]),
    ("rtl", ["--rtl"], [0.5, 0.3]),
    ("vertical", ["--vertical"], [0.5, 0.7]),
    ("look", ["--look", "dream", "--before-look", "noir", "--brightness", "0.15"], [0.5, 0.25]),
    ("styled", ["--corner-radius", "24", "--knob-color", "#ff8800", "--divider-width", "6", "--ui-scale", "1.5"], [0.4]),
    ("wipe", ["--no-handle", "--no-labels", "--hard-edge"], [0.3333, 0.5]),
    ("hard-edge", ["--hard-edge", "--vertical", "--rtl"], [0.3333]),
]


NOISE_CASES = [
    ("noise", ["--no-labels"], [0.5, 0.3333]),
    ("noise-look", ["--look", "vivid", "--before-look", "dream", "--contrast", "1.4", "--hue", "-20", "--no-labels"], [0.6]),
]


@pytest.mark.parametrize("name,args,positions", PIXEL_CASES + NOISE_CASES, ids=[c[0] for c in PIXEL_CASES + NOISE_CASES])
def test_pixels_match_sweep_preview(out, opened, noise, name, args, positions):
    sides = noise if name.startswith("noise") else (BEFORE, AFTER)
    page = render(out, f"px-{name}.html", "--page-images", "png", *args, sides=sides)
    w = opened(page)
    for p in positions:
        still = out / f"px-{name}-{p}.png"
        sweep("preview", *sides, *SIZE, *args, "-o", str(still), "--position", str(p))
        rects = w.js("""async p=>{const e=document.querySelector('sweep-compare');e.pause();e.position=p;
            for(const i of e.querySelectorAll('img'))await i.decode();
            await new Promise(r=>requestAnimationFrame(()=>requestAnimationFrame(r)));
            const f=e.F.getBoundingClientRect();
            return [...e.querySelectorAll('.sc-t,.sc-p')].filter(x=>!x.hidden)
              .map(x=>{const r=x.getBoundingClientRect();return [r.left-f.left,r.top-f.top,r.width,r.height]})}""", p)
        shot = out / f"px-{name}-{p}-web.png"
        w.page.locator(".sc-f").screenshot(path=str(shot))
        web = np.asarray(Image.open(shot).convert("RGB"), dtype=np.int16)
        ref = np.asarray(Image.open(still).convert("RGB"), dtype=np.int16)
        assert web.shape == ref.shape
        diff = np.abs(web - ref).mean(axis=2)
        mask = np.ones(diff.shape, bool)
        for x, y, rw, rh in rects:  # the tags' text and the pause button, with a 4 px margin
            mask[max(0, int(y) - 4):int(y + rh) + 5, max(0, int(x) - 4):int(x + rw) + 5] = False
        masked, full = diff[mask].mean(), diff.mean()
        report(f"pixels {name:9s} p={p:<6} masked mean {masked:.3f}  full mean {full:.3f}  "
               f"masked p99 {np.percentile(diff[mask], 99):.1f}  masked max {diff[mask].max():.0f} (levels of 255)")
        assert masked < MASKED_MEAN, f"{name} at {p}: {masked:.3f}"
        assert full < FULL_MEAN, f"{name} at {p}: {full:.3f}"


# --- The same maths ---------------------------------------------------------------------

def test_curves_and_springs_match_swift(out, opened):
    w = opened(render(out, "curves.html"))
    table = json.loads((ROOT / "Tests/browser/curve_table.json").read_text())
    got = w.js("""t=>{const C=customElements.get('sweep-compare');
        return [t.curves.map(c=>c.samples.map(([e])=>C.curve(c.curve,e,c.duration))), t.settle.map(([w,z])=>C.settle(w,z))]}""", table)
    worst = 0.0
    for c, values in zip(table["curves"], got[0]):
        for (e, want), have in zip(c["samples"], values):
            worst = max(worst, abs(have - want))
            assert abs(have - want) < 1e-9, (c["curve"], e, have, want)
    for (_, _, want), have in zip(table["settle"], got[1]):
        assert abs(have - want) < 1e-9
    check = w.js("""()=>{const C=customElements.get('sweep-compare').curve;
        return [C([.42,0,.58,1],.25,1),C([.42,0,.58,1],.75,1),C([.25,.1,.25,1],.5,1)]}""")
    assert [round(v, 6) for v in check] == [0.129162, 0.870838, 0.802403]
    report(f"curves: {sum(len(c['samples']) for c in table['curves'])} samples, {len(table['settle'])} settling times, worst |JS - Swift| {worst:.1e}")


def test_look_matrix_in_js_equals_swift(out, opened):
    w = opened(render(out, "matrix.html", "--look", "dream", "--before-look", "vivid", "--hue", "-30"))
    for side, look in [("before", [0.05, 1.2, 1.7, 0]), ("after", [0.1, 0.85, 1.2, -30])]:
        swift = w.js(f"()=>document.querySelector('filter[data-side={side}] feColorMatrix').getAttribute('values')")
        js = w.js("l=>customElements.get('sweep-compare').matrix(l)", look)
        a, b = np.array(swift.split(), float), np.array(js.split(), float)
        assert np.abs(a - b).max() < 1e-12


# --- Interaction ------------------------------------------------------------------------

def test_keyboard_moves_the_split(out, opened):
    w = opened(render(out, "keys.html"))
    w.js("()=>{const e=document.querySelector('sweep-compare');e.position=.5}")
    w.page.focus(".sc-f")
    steps = [("ArrowRight", 60), ("Shift+ArrowLeft", 59), ("ArrowLeft", 49), ("ArrowUp", 59), ("ArrowDown", 49),
             ("Home", 0), ("End", 100), ("Shift+ArrowLeft", 99)]
    for key, want in steps:
        w.page.keyboard.press(key)
        assert w.state()["now"] == want, key
    s = w.state()
    assert s["text"] == "99 % before" and not s["playing"]
    assert w.js("()=>document.querySelector('.sc-f').matches(':focus-visible')")
    assert w.js("()=>{const f=document.querySelector('.sc-f');return [f.getAttribute('role'),f.getAttribute('aria-valuemin'),f.getAttribute('aria-valuemax')]}") == ["slider", "0", "100"]


def test_keyboard_follows_the_layout_in_rtl(out, opened):
    w = opened(render(out, "keys-rtl.html", "--rtl"))
    w.js("()=>{document.querySelector('sweep-compare').position=.5}")
    w.page.focus(".sc-f")
    w.page.keyboard.press("ArrowRight")               # the handle moves right: less of before (on the right)
    assert w.state()["now"] == 40


def edge_at(w, p, vertical=False):
    """Where split position `p` lies across the frame, as a share of it: positions 0 and 1
    sit the knob's radius plus 4 pt inside the frame (the handle never rests cut in half)."""
    width, height, k, ks, hd = w.js("()=>{const C=document.querySelector('sweep-compare').C;return [C.w,C.h,C.k,C.ks,C.hd]}")
    z = height if vertical else width
    inset = min((ks / 2 + 4) * k, z / 4) if hd else 0
    return (inset + (z - 2 * inset) * p) / z


def test_pointer_drag_and_click_move_the_split_and_fire_events(out, opened):
    w = opened(render(out, "drag.html"))
    w.js("""()=>{const e=document.querySelector('sweep-compare');window.ev=[];
        for(const n of ['input','change'])e.addEventListener(n,()=>window.ev.push(n+' '+e.position.toFixed(3)))}""")
    b = w.frame_box()
    y = b["y"] + b["height"] / 2
    m = w.page.mouse
    m.move(b["x"] + b["width"] * 0.5, y)
    m.down()
    assert not w.state()["playing"]                   # the first interaction stops autoplay
    m.move(b["x"] + b["width"] * edge_at(w, 0.75), y, steps=5)
    m.up()
    assert abs(w.state()["p"] - 0.75) < 0.01
    events = w.js("()=>window.ev")
    assert events.count("change 0.750") == 1 and len([e for e in events if e.startswith("input")]) >= 3
    w.js("()=>{window.ev=[]}")
    m.click(b["x"] + b["width"] * edge_at(w, 0.25), y)
    assert abs(w.state()["p"] - 0.25) < 0.01
    assert w.js("()=>window.ev") == ["input 0.250", "change 0.250"]


def test_vertical_drag_follows_the_pointer_down(out, opened):
    w = opened(render(out, "drag-v.html", "--vertical"))
    b = w.frame_box()
    w.page.mouse.click(b["x"] + b["width"] / 2, b["y"] + b["height"] * edge_at(w, 0.8, vertical=True))
    assert abs(w.state()["p"] - 0.8) < 0.01


def positions(w, count, every_ms):
    seen = []
    for _ in range(count):
        seen.append(w.state()["p"])
        w.page.wait_for_timeout(every_ms)
    return seen


def test_autoplay_runs_and_the_first_interaction_stops_it(out, opened):
    w = opened(render(out, "auto.html", "--hold", "0", "--duration", "2", "--ease", "linear"))
    assert w.state()["playing"]
    moving = positions(w, 3, 150)
    assert len(set(moving)) == 3
    w.page.focus(".sc-f")
    w.page.keyboard.press("ArrowLeft")
    assert not w.state()["playing"]
    still = positions(w, 3, 150)
    assert len(set(still)) == 1


def test_pause_button_pauses_and_resumes(out, opened):
    w = opened(render(out, "button.html", "--hold", "0", "--duration", "2", "--ease", "linear"))
    button = w.page.locator(".sc-p")
    assert button.get_attribute("aria-label") == "Pause animation"
    button.click()
    assert not w.state()["playing"]
    assert button.get_attribute("aria-label") == "Play animation"
    assert len(set(positions(w, 3, 150))) == 1
    button.click()
    assert w.state()["playing"]
    assert len(set(positions(w, 3, 150))) == 3


def test_reduced_motion_dissolves_instead_of_travelling(out, opened):
    w = opened(render(out, "reduce.html", "--hold", "0.3", "--duration", "1"), reduced_motion="reduce")
    seen, fades, knobs = set(), [], set()
    for _ in range(30):
        s = w.js("""()=>{const e=document.querySelector('sweep-compare');
            return [e.position, e.L[1].d.hidden?0:+e.L[1].d.style.opacity, e.L[0].g.getAttribute('transform')]}""")
        seen.add(round(s[0], 6))
        fades.append(s[1])
        knobs.add(s[2])
        w.page.wait_for_timeout(60)
    assert seen <= {0.0, 1.0}, seen                   # the handle rests at the ends only
    assert len(knobs) <= 2
    assert any(0.05 < f < 0.95 for f in fades)        # and the change is a cross-fade


def test_looks_animate_through_the_svg_filter(out, opened):
    w = opened(render(out, "tour.html", "--preset", "look-tour"))
    values = set()
    for _ in range(14):  # about 2 s of a 0.6 s-per-look tour, sampled sparsely enough for a busy machine
        values.add(w.js("()=>document.querySelector('filter[data-side=after] feColorMatrix').getAttribute('values')"))
        w.page.wait_for_timeout(150)
    assert len(values) >= 4


def test_retina_pages_pick_the_2x_images(out, opened):
    path = render(out, "retina.html", "--retina")
    w = opened(path, device_scale_factor=2)
    # naturalWidth is density-corrected (800 px at 2x reads 400), so check which file was chosen.
    chosen = w.js("""async()=>{const e=document.querySelector('sweep-compare');
        return Promise.all(e.im.slice(0,2).map(async i=>{await i.decode();return i.currentSrc==i.getAttribute('srcset').split(' ')[0]}))}""")
    assert chosen == [True, True]
    big = Image.open(__import__("io").BytesIO(__import__("base64").b64decode(
        path.read_text().split('srcset="data:image/jpeg;base64,')[1].split(" ")[0])))
    assert big.size == (800, 600)


def test_element_by_hand_from_its_attributes(out, opened):
    """The fragment's style and script drive an element written by hand (no configuration block)."""
    frag = render(out, "frag.html", "--fragment", "--page-images", "png").read_text()
    assert "<html" not in frag
    style = frag.split("<style>")[1].split("</style>")[0]
    script = frag.split("<script>(()=>")[1].split("</script>")[0]
    uris = [u.split('"')[0] for u in frag.split('src="')[1:3]]
    page = out / "by-hand.html"
    page.write_text(f"<!doctype html><meta charset=utf-8><style>{style}</style>"
                    f'<sweep-compare before="{uris[0]}" after="{uris[1]}" width="400" height="300" position="0.3" '
                    f'before-label="Antes" after-label="Después"></sweep-compare><script>(()=>{script}</script>')
    w = opened(page)
    s = w.state()
    assert s["p"] == 0.3 and not s["playing"] and s["text"] == "30 % antes"
    assert w.js("()=>document.querySelector('.sc-p').hidden")             # nothing to play: no button
    w.js("()=>{const e=document.querySelector('sweep-compare');e.vertical=true;e.position=.6;e.after=e.before}")
    assert w.js("()=>{const e=document.querySelector('sweep-compare');return [e.vertical,e.F.getAttribute('aria-orientation'),e.after==e.before]}") == [True, "vertical", True]
    assert w.state()["now"] == 60
    assert w.errors == []


def test_a_still_page_applies_its_looks(out, opened):
    """Nothing moves (from = to): no autoplay, no button, and the looks still apply."""
    w = opened(render(out, "still.html", "--from", "0.4", "--to", "0.4", "--look", "noir"))
    s = w.state()
    assert s["p"] == 0.4 and not s["playing"]
    assert w.js("()=>document.querySelector('.sc-p').hidden")
    assert "#sc" in w.js("()=>document.querySelector('img[data-side=after]').style.filter")


def test_reduce_motion_in_the_spec_applies_to_everyone(out, opened):
    w = opened(render(out, "cut.html", "--hold", "0.2", "--duration", "0.6", "--reduce-motion", "cut"))
    seen = set()
    for _ in range(15):
        seen.add(round(w.state()["p"], 6))
        w.page.wait_for_timeout(50)
    assert seen <= {0.0, 1.0} and len(seen) == 2, seen


def test_timeline_states_match_swift(out, opened):
    """The element's timeline (tracks, curves, cut and dissolve) against Swift's Animation.states
    for every animation preset, from the table a Swift test keeps (timeline_table.json)."""
    table = json.loads((ROOT / "Tests/browser/timeline_table.json").read_text())
    worst, count = 0.0, 0
    for entry in table:
        w = opened(render(out, f"tl-{entry['preset']}.html", "--preset", entry["preset"]))
        got = w.js("""tab=>{const e=document.querySelector('sweep-compare');e.pause();const r={};
            for(const m of ['off','cut','dissolve']){e.rm=m;e.K=0;
              r[m]=tab[m].map(([t])=>{const s=e.at(t);return [s.p,s.b,s.a,s.x?s.x[0]:null,s.x?s.x[1]:null]})}
            return r}""", entry)
        for mode in ("off", "cut", "dissolve"):
            for want, have in zip(entry[mode], got[mode]):
                t, want = want[0], want[1:]
                assert (want[3] is None) == (have[3] is None), (entry["preset"], mode, t)
                flat_w = [want[0], *want[1], *want[2]] + ([want[3], want[4]] if want[3] is not None else [])
                flat_h = [have[0], *have[1], *have[2]] + ([have[3], have[4]] if have[3] is not None else [])
                err = max(abs(a - b) for a, b in zip(flat_w, flat_h))
                worst, count = max(worst, err), count + 1
                assert err < 1e-9, (entry["preset"], mode, t, want, have)
    report(f"timeline: {count} states ({len(table)} presets x off/cut/dissolve), worst |JS - Swift| {worst:.1e}")


def test_loops_fold_play_time_into_a_pass(out, opened):
    w = opened(render(out, "fold.html"))
    got = w.js("""()=>{const f=customElements.get('sweep-compare').fold;
        return [f({d:2,l:'forever'},5.5),f({d:2,l:'once'},1.5),f({d:2,l:'once'},2.5),f({d:2,l:2},3),f({d:2,l:2},4.5),
                f({d:2,l:'boomerang'},3),f({d:2,l:'boomerang'},4.5)]}""")
    assert got == [[1.5], [1.5], [2, 1], [1], [2, 1], [1], [0.5]]


def test_touch_tap_moves_the_split(out, opened):
    w = opened(render(out, "touch.html"), has_touch=True)
    w.js("()=>{window.ev=[];document.querySelector('sweep-compare').addEventListener('change',()=>window.ev.push('change'))}")
    b = w.frame_box()
    w.page.touchscreen.tap(b["x"] + b["width"] * edge_at(w, 0.8), b["y"] + b["height"] / 2)
    assert abs(w.state()["p"] - 0.8) < 0.01 and not w.state()["playing"]
    assert w.js("()=>window.ev") == ["change"]
    assert w.js("()=>getComputedStyle(document.querySelector('.sc-f')).touchAction") == "pan-y"


def test_tags_fade_as_the_handle_covers_them(out, opened):
    w = opened(render(out, "tags.html"))
    for p, before, after in [(0.1, 0.4, 1), (0.5, 1, 1), (0.95, 1, 0.2), (0, 0, 1)]:
        got = w.js("""p=>{const e=document.querySelector('sweep-compare');e.position=p;
            return [...e.querySelectorAll('.sc-t')].map(t=>+getComputedStyle(t).opacity)}""", p)
        assert abs(got[0] - before) < 1e-6 and abs(got[1] - after) < 1e-6, (p, got)


def test_dissolve_frames_match_sweep(out, opened, noise):
    """Reduced motion's cross-fade, mid-way: the page's layers against sweep's blended frame."""
    # --duration is the whole pass: 0.2 s hold, 1 s change, 0.2 s hold.
    args = ["--hold", "0.2", "--duration", "1.4", "--reduce-motion", "dissolve", "--no-labels"]
    frames = out / "dissolve-%02d.png"
    sweep("render", *noise, *SIZE, *args, "--fps", "10", "-o", str(frames))
    # A page has no frame rate (the browser draws at its own): --fps is refused there.
    w = opened(render(out, "dissolve.html", "--page-images", "png", *args, sides=noise))
    for i in (4, 7, 10):
        rects = w.js("""async t=>{const e=document.querySelector('sweep-compare');e.pause();e.rm='dissolve';e.K=0;
            e.show(e.at(t));for(const i of e.querySelectorAll('img'))await i.decode();
            await new Promise(r=>requestAnimationFrame(()=>requestAnimationFrame(r)));
            const f=e.F.getBoundingClientRect(),r=e.P.getBoundingClientRect();return [[r.left-f.left,r.top-f.top,r.width,r.height]]}""", i / 10)
        shot = out / f"dissolve-{i}-web.png"
        w.page.locator(".sc-f").screenshot(path=str(shot))
        web = np.asarray(Image.open(shot).convert("RGB"), dtype=np.int16)
        ref = np.asarray(Image.open(str(frames) % i).convert("RGB"), dtype=np.int16)
        diff = np.abs(web - ref).mean(axis=2)
        mask = np.ones(diff.shape, bool)
        for x, y, rw, rh in rects:
            mask[max(0, int(y) - 4):int(y + rh) + 5, max(0, int(x) - 4):int(x + rw) + 5] = False
        report(f"dissolve  t={i / 10:<4} masked mean {diff[mask].mean():.3f}  masked p99 {np.percentile(diff[mask], 99):.1f}  "
               f"masked max {diff[mask].max():.0f} (levels of 255)")
        # A cross-fade is 8-bit compositing in both: sweep rounds its mix half up, Chromium's
        # opacity blend may land half a level lower, so the bound is one level on average
        # (a wrong fraction, band or knob costs several).
        assert diff[mask].mean() < 1.0 and np.percentile(diff[mask], 99) <= 2


@pytest.mark.parametrize("name,args,rests", [
    ("ltr", [], [0, 1]), ("rtl", ["--rtl"], [0, 1]), ("vertical", ["--vertical"], [0, 1]),
    ("peek", ["--from", "1", "--to", "0.5"], [0.5, 1]),
])
def test_pause_button_stays_clear_of_where_the_handle_rests(out, opened, name, args, rests):
    w = opened(render(out, f"rest-{name}.html", *args))
    vertical = "--vertical" in args
    for p in rests:
        w.js(f"()=>{{document.querySelector('sweep-compare').position={p}}}")
        line, button = w.js("""()=>{const e=document.querySelector('sweep-compare'),r=e.L[0].g.querySelector('rect').getBoundingClientRect(),
            b=document.querySelector('.sc-p').getBoundingClientRect();return [[r.left,r.top,r.right,r.bottom],[b.left,b.top,b.right,b.bottom]]}""")
        lo, hi = (1, 3) if vertical else (0, 2)
        assert line[hi] < button[lo] or line[lo] > button[hi], f"{name} at {p}: line {line}, button {button}"
    assert not w.js("()=>document.querySelector('.sc-p').hidden")
