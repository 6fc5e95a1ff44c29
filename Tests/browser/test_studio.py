"""The studio `sweep serve` shows at `/`, in Debian's chromium driven by Playwright: pick two
pictures, tune the animation, export through the API, and check that what was downloaded is
byte for byte what `sweep render` writes from the command line the page shows.

Run by Tests/browser/run.sh (from `make test`); SWEEP_BIN names the sweep binary.
"""
import base64
import json
import os
import shlex
import shutil
import struct
import subprocess
import tempfile
import time
import urllib.request
import zlib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
SWEEP = os.environ.get("SWEEP_BIN", str(ROOT / ".build/debug/sweep"))


def serve(*options):
    """A fresh `sweep serve --port 0` over a temporary store; yields its base URL."""
    store = tempfile.mkdtemp(prefix="sweep-studio-store-")
    log = tempfile.NamedTemporaryFile(prefix="sweep-studio-", suffix=".log", delete=False)
    proc = subprocess.Popen([SWEEP, "serve", "--port", "0", "--store", store, "--jobs", "2", *options], stdout=log,
                            stderr=subprocess.STDOUT)
    url = None
    for _ in range(200):
        text = Path(log.name).read_text()
        if "listening on " in text:
            url = text.split("listening on ", 1)[1].split()[0]
            break
        time.sleep(0.05)
    assert url, "sweep serve did not start: " + Path(log.name).read_text()
    yield url
    proc.terminate()
    proc.wait(timeout=60)
    shutil.rmtree(store, ignore_errors=True)
    os.unlink(log.name)


@pytest.fixture(scope="module")
def server():
    yield from serve()


TOKEN = "studio-test-token"


@pytest.fixture(scope="module")
def secured_server():
    yield from serve("--token", TOKEN)


@pytest.fixture(scope="module")
def pictures(tmp_path_factory):
    """Two 320x240 pictures (gradients with noise, a different tint each) named as a user's
    files would be: the command line names them, and the CLI run reads them by these names."""
    folder = tmp_path_factory.mktemp("studio-pictures")
    rng = np.random.default_rng(50)
    y, x = np.mgrid[0:240, 0:320]
    paths = []
    for name, tint in [("kitchen-before.png", (1.0, 0.6, 0.2)), ("kitchen-after.png", (0.2, 0.5, 1.0))]:
        base = np.stack([x / 320 * 255 * tint[0], y / 240 * 255 * tint[1], (x + y) / 560 * 255 * tint[2]], axis=2)
        img = np.clip(base + rng.normal(0, 30, base.shape), 0, 255).astype(np.uint8)
        Image.fromarray(img).save(folder / name)
        paths.append(folder / name)
    return paths




class Studio:
    """The studio in a fresh context; records console errors, page errors, CSP violations
    and every request's URL."""

    def __init__(self, browser, url, **context):
        self.url = url
        self.context = browser.new_context(**{"viewport": {"width": 1200, "height": 900}, "accept_downloads": True, **context})
        self.page = self.context.new_page()
        self.errors, self.requests = [], []
        self.page.on("console", lambda m: m.type in ("error", "warning") and self.errors.append(m.text))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.add_init_script("window.__csp=[];document.addEventListener('securitypolicyviolation',"
                                  "e=>window.__csp.push(e.violatedDirective+' '+e.blockedURI))")
        self.response = self.page.goto(url + "/")

    def pick(self, before, after=None):
        self.page.set_input_files("#before", str(before))
        if after:
            self.page.set_input_files("#after", str(after))
        self.page.wait_for_function("()=>document.querySelector('#stage sweep-compare')?.F")

    def element(self, script):
        # A function, not a string to eval: the page's policy refuses eval (no 'unsafe-eval').
        return self.page.evaluate("()=>{const e=document.querySelector('#stage sweep-compare');return (%s)}" % script)

    def export(self, kind, folder):
        """Exports as `kind` and saves the download into `folder`; returns its path."""
        self.page.select_option("#output-type", kind)
        self.page.click("#export")
        self.page.wait_for_selector("#download:not([hidden])", timeout=120_000)
        with self.page.expect_download() as d:
            self.page.click("#download")
        path = folder / d.value.suggested_filename
        d.value.save_as(path)
        return path

    def clean(self):
        """No console error, no page error, no CSP violation, no request elsewhere."""
        assert self.errors == []
        assert self.page.evaluate("window.__csp") == []
        assert [u for u in self.requests if not (u.startswith(self.url) or u.startswith("blob:") or u.startswith("data:"))] == []

    def close(self):
        self.context.close()


@pytest.fixture
def studio(browser, server, closing):
    return closing(lambda url=server, **context: Studio(browser, url, **context))


def cli(command, pictures, folder):
    """Runs the page's command line with the real binary, in a folder holding the pictures
    under the names it uses; returns the output's path."""
    argv = shlex.split(command)
    assert argv[0] == "sweep" and argv[1] in ("render", "preview")
    work = folder / "cli"
    work.mkdir(exist_ok=True)
    for p in pictures:
        shutil.copy(p, work / p.name)
    subprocess.run([SWEEP, *argv[1:], "-q"], cwd=work, check=True)
    return work / argv[argv.index("-o") + 1]


def frames(path):
    """Every decoded frame's MD5 (ffmpeg's framemd5), without the header lines."""
    out = subprocess.run(["ffmpeg", "-v", "error", "-i", str(path), "-f", "framemd5", "-"], check=True, capture_output=True,
                         text=True).stdout
    return [line for line in out.splitlines() if not line.startswith("#")]


def test_exports_match_the_command_line(studio, pictures, tmp_path):
    s = studio()
    s.pick(*pictures)
    s.page.select_option("#o-preset", "compare")
    s.page.select_option("#o-look", "vivid")
    s.page.fill("#o-duration", "1.5")
    s.page.fill("#o-after-label", "Graded")
    # The preview follows each change: the same element, now with the new timeline and label.
    # Each change fetches the element's settings anew, so the duration's answer can land
    # before the label's: wait for the last change, the label, as well.
    s.page.wait_for_function(
        "()=>{const e=document.querySelector('#stage sweep-compare');return e?.T?.d===1.5&&e?.lab?.[1]==='Graded'}")
    assert s.element("e.lab") == ["Before", "Graded"]
    for kind in ["gif", "mp4", "webm", "html"]:
        got = s.export(kind, tmp_path)
        command = s.page.text_content("#command")
        assert "--preset compare" in command and "--look vivid" in command and "--duration 1.5" in command
        assert command.endswith("-o compare." + kind)
        want = cli(command, pictures, tmp_path)
        if kind == "webm":
            # Two WebM runs of the CLI itself differ in the Matroska header (a random segment
            # UID), so a WebM is compared by its decoded frames.
            assert frames(got) == frames(want), f"webm: the studio's frames differ from `{command}`"
        else:
            assert got.read_bytes() == want.read_bytes(), f"{kind}: the studio's export differs from `{command}`"
    # The batch job line holds the same settings as the command line.
    job = json.loads(s.page.text_content("#job"))
    assert job == {"before": "kitchen-before.png", "after": "kitchen-after.png", "preset": "compare", "duration": 1.5,
                   "look": "vivid", "after-label": "Graded", "output": "compare.html"}
    assert s.page.text_content("#status").endswith("is ready to download.")
    s.clean()


def test_still_export_and_strict_policy(studio, pictures, tmp_path):
    s = studio()
    csp = s.response.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "connect-src 'self'" in csp and "img-src blob: data: 'self'" in csp
    assert "unsafe-inline" not in csp
    s.pick(pictures[0])
    s.page.select_option("#o-look", "noir")
    got = s.export("png", tmp_path)
    command = s.page.text_content("#command")
    assert command.startswith("sweep preview kitchen-before.png --look noir")
    assert got.read_bytes() == cli(command, pictures[:1], tmp_path).read_bytes()
    # A poster is the og:image size unless a format says otherwise.
    got = s.export("poster", tmp_path)
    command = s.page.text_content("#command")
    assert command == "sweep preview kitchen-before.png --look noir --size 1200x630 -o poster.jpg"
    assert got.read_bytes() == cli(command, pictures[:1], tmp_path).read_bytes()
    assert Image.open(got).size == (1200, 630)
    s.clean()


def test_keyboard_reaches_every_control(studio, pictures):
    s = studio()
    s.pick(*pictures)
    controls = s.page.evaluate("""()=>[...document.querySelectorAll('input,select,button,a[href],[tabindex="0"]')]
        .filter(e=>!e.disabled&&!e.hidden&&e.offsetParent!==null).map(e=>e.id||e.className)""")
    assert len(controls) > 20
    seen = set()
    for _ in range(len(controls) + 10):
        s.page.keyboard.press("Tab")
        seen.add(s.page.evaluate("()=>document.activeElement.id||document.activeElement.className"))
    assert set(controls) - seen == set()
    # Every control has a label a screen reader reads, and progress is announced.
    unlabelled = s.page.evaluate("""()=>[...document.querySelectorAll('input,select')]
        .filter(e=>!(e.labels&&e.labels.length)&&!e.getAttribute('aria-label')).map(e=>e.id)""")
    assert unlabelled == []
    assert s.page.get_attribute("#status", "aria-live") == "polite"
    # The slider moves with the keyboard.
    s.page.focus("#stage .sc-f")
    s.page.keyboard.press("Home")
    assert s.element("e.position") == 0
    s.clean()


@pytest.mark.parametrize("motion", ["reduce", "no-preference"])
def test_reduced_motion_pauses_the_preview(studio, pictures, motion):
    s = studio(reduced_motion=motion)
    s.pick(*pictures)
    s.page.wait_for_timeout(600)
    playing = s.element("e.playing")
    elapsed = s.element("e.e||0")
    if motion == "reduce":
        assert not playing and elapsed == 0
    else:
        assert playing and elapsed > 0.2
    # The scrubber shows any moment of the pass, paused.
    s.page.evaluate("()=>{const r=document.getElementById('scrub');r.value=500;r.dispatchEvent(new Event('input'))}")
    assert not s.element("e.playing")
    assert abs(s.element("e.e") - s.element("e.T.d") / 2) < 1e-6
    s.clean()


def test_dropping_two_pictures(studio):
    s = studio()
    transfer = s.page.evaluate_handle("""async()=>{const c=document.createElement('canvas');c.width=64;c.height=48;
        const g=c.getContext('2d'),t=new DataTransfer();
        for(const[n,col]of[['left.png','#f80'],['right.png','#08f']]){g.fillStyle=col;g.fillRect(0,0,64,48);
        t.items.add(new File([await new Promise(r=>c.toBlob(r))],n,{type:'image/png'}))}return t}""")
    s.page.dispatch_event("#drop", "drop", {"dataTransfer": transfer})
    s.page.wait_for_function("()=>document.querySelector('#stage sweep-compare')?.F")
    assert s.page.text_content("#command") == "sweep render left.png right.png -o compare.gif"
    assert s.element("[e.C.w, e.C.h]") == [64, 48]
    assert s.element("e.before") != s.element("e.after")
    s.clean()


def test_a_server_with_a_token(studio, secured_server, pictures, tmp_path):
    s = studio(url=secured_server)
    s.pick(*pictures)
    s.page.fill("#o-duration", "1")
    # Without the token the API refuses, and the page says so.
    s.page.click("#export")
    s.page.wait_for_function("()=>document.getElementById('status').textContent.startsWith('Export failed')")
    assert "bearer token" in s.page.text_content("#status")
    s.errors.clear()  # the browser logs the refused request (401) as an error
    s.page.fill("#token", TOKEN)
    got = s.export("gif", tmp_path)
    assert got.read_bytes() == cli(s.page.text_content("#command"), pictures, tmp_path).read_bytes()
    assert s.page.get_attribute("#download", "href").startswith("blob:")
    s.clean()


def test_screenshot(studio, pictures):
    """The README's picture of the studio: .build/studio.jpg on every run, docs/studio.jpg
    when SWEEP_WRITE_SCREENSHOT=1 (re-recorded deliberately, like the man page)."""
    s = studio()
    s.pick(*pictures)
    s.page.select_option("#output-type", "mp4")
    s.page.select_option("#o-look", "vivid")
    # The last change's preview is the one that stays (earlier answers are dropped).
    s.page.fill("#o-after-label", "Graded")
    s.page.wait_for_function("()=>document.querySelector('#stage sweep-compare')?.lab?.[1]==='Graded'")
    # A still moment of the pass, so the picture does not depend on timing.
    s.page.evaluate("()=>{const r=document.getElementById('scrub');r.value=450;r.dispatchEvent(new Event('input'))}")
    s.page.evaluate("()=>{document.activeElement.blur();scrollTo(0,0)}")
    assert not s.element("e.playing") and s.element("e.P.getAttribute('aria-label')") == "Play animation"
    assert s.page.evaluate("()=>document.querySelector('#stage sweep-compare').getBoundingClientRect().width") > 600
    # JPEG: the noisy test pictures would make a PNG of a megabyte.
    s.page.screenshot(path=str(ROOT / ".build/studio.jpg"), type="jpeg", quality=80)
    if os.environ.get("SWEEP_WRITE_SCREENSHOT"):
        shutil.copy(ROOT / ".build/studio.jpg", ROOT / "docs/studio.jpg")
    s.clean()


PREVIEW_CASES = {
    # name: (what is chosen in the page, the same as `sweep preview` options, the output's size)
    "story": ({"format": "story"}, ["--format", "story"], (1080, 1920)),
    "instagram-square": ({"format": "instagram-square"}, ["--format", "instagram-square"], (1080, 1080)),
    "og-image": ({"format": "og-image"}, ["--format", "og-image"], (1200, 630)),
    "vertical": ({"vertical": True}, ["--vertical"], (320, 240)),
    "fit": ({"format": "story", "fit": "fit"}, ["--format", "story", "--fit", "fit"], (1080, 1920)),
}


def small(img, size=(96, 96)):
    """An RGB picture reduced to `size` as floats: the noise averages out, the layout stays."""
    return np.asarray(img.convert("RGB").resize(size, Image.BILINEAR), dtype=np.float64)


def choose(page, settings):
    """Sets the page's controls: a checkbox for True, a list or a field otherwise."""
    for name, value in settings.items():
        if value is True:
            page.check(f"#o-{name}")
        elif page.evaluate("(n)=>document.getElementById('o-'+n).tagName", name) == "SELECT":
            page.select_option(f"#o-{name}", value)
        else:
            page.fill(f"#o-{name}", value)


def scrub_to(page, value):
    page.evaluate("(v)=>{const r=document.getElementById('scrub');r.value=v;r.dispatchEvent(new Event('input'))}", value)


def cli_still(files, options, name, folder):
    """`sweep preview FILES OPTIONS -o name` run in `folder` (holding copies of the files)."""
    work = folder / "cli"
    work.mkdir(exist_ok=True)
    for p in files:
        shutil.copy(p, work / p.name)
    subprocess.run([SWEEP, "preview", *[p.name for p in files], *options, "-o", name, "-q"], cwd=work, check=True)
    return work / name


@pytest.mark.parametrize("case", sorted(PREVIEW_CASES))
def test_preview_shows_the_exports_crop(studio, pictures, tmp_path, case):
    """A format of another shape than the picture, a vertical split, a picture fitted whole:
    the preview shows the frame as the export does (it used to stretch the whole picture),
    checked at three moments against `sweep preview` of the same settings with the split where
    the preview has it. Measured (mean difference of 255): story 2.8-3.0, instagram-square 3.6-3.7,
    og-image 1.2-1.3 (stretched: 11.8-17.1); vertical 1.2-1.5 (against a split across: 13.6-36.6);
    a story fitted whole 0.7-0.9 (against the cropped one: 51-53)."""
    settings, options, (w, h) = PREVIEW_CASES[case]
    s = studio()
    s.pick(*pictures)
    choose(s.page, settings)
    s.page.wait_for_function(
        """([w,h,v,f])=>{const e=document.querySelector('#stage sweep-compare');
        return e?.F&&e.C.w==w&&e.C.h==h&&e.hasAttribute('vertical')==v&&e.dataset.fit==f}""",
        arg=[w, h, bool(settings.get("vertical")), settings.get("fit", "fill")])
    for scrub in (250, 500, 750):
        scrub_to(s.page, scrub)
        position = s.element("e.p")
        shot = tmp_path / f"preview-{scrub}.png"
        s.page.locator("#stage sweep-compare").screenshot(path=str(shot))
        exported = Image.open(cli_still(pictures, [*options, "--position", str(position)], f"still-{scrub}.png", tmp_path))
        assert exported.size == (w, h)
        seen = Image.open(shot)
        assert abs(seen.size[0] / seen.size[1] - w / h) < 0.02
        diff = np.abs(small(seen) - small(exported)).mean()
        assert diff < 7, f"{case} at {position:.3f}: the preview differs from the export by {diff:.1f} of 255 on average"
    s.clean()


def test_a_still_format_exports_a_still(studio, pictures, tmp_path):
    """Choosing og-image (a still format) makes the export a PNG still by itself, and the
    still is `sweep preview`'s; an animated format makes it the animation chosen before."""
    s = studio()
    s.pick(*pictures)
    s.page.select_option("#output-type", "mp4")
    s.page.select_option("#o-format", "og-image")
    assert s.page.input_value("#output-type") == "png"
    s.page.wait_for_function("()=>document.getElementById('command').textContent.endsWith('-o still.png')")
    command = s.page.text_content("#command")
    assert command == "sweep preview kitchen-before.png kitchen-after.png --format og-image -o still.png"
    got = s.export("png", tmp_path)  # the type the format chose
    assert got.read_bytes() == cli(command, pictures, tmp_path).read_bytes()
    assert Image.open(got).size == (1200, 630)
    # An animated format: the animation again, as chosen before (small and short, to be quick).
    s.page.select_option("#o-format", "story")
    assert s.page.input_value("#output-type") == "mp4"
    s.page.fill("#o-size", "216x384")
    s.page.fill("#o-duration", "1")
    got = s.export("mp4", tmp_path)
    command = s.page.text_content("#command")
    assert command.startswith("sweep render ") and "--format story" in command and command.endswith("-o compare.mp4")
    assert got.read_bytes() == cli(command, pictures, tmp_path).read_bytes()
    s.clean()


def served_frame(s, files, value, tmp_path):
    """Scrubs to `value` (of 1000) in a preview drawn by the server and checks the frame shown
    against `sweep preview` of the same settings at the moment the server names: the bytes the
    page was sent are the CLI's, and what the page shows looks like them. Returns the frame's
    data attributes."""
    scrub_to(s.page, value)
    s.page.wait_for_function("(a)=>{const f=document.getElementById('frame');return f.dataset.at===String(a)&&f.complete}",
                             arg=value / 1000)
    shown = s.page.evaluate("()=>({...document.getElementById('frame').dataset})")
    options = json.loads(shown["spec"])
    # The page's settings, the split where the server put it and, for clips, the start moved
    # to the clip time shown.
    moved = {"output": None, "position": shown["position"], **({"start": shown["start"]} if shown["start"] else {})}
    args = []
    for key, v in {**options, **moved}.items():
        if v is not None:
            args += [f"--{key}"] if v is True else [f"--{key}", str(v)]
    want = cli_still(files, args, f"still-{value}.png", tmp_path)
    # The page fetched the frame from this URL: fetched again, the same bytes as the CLI's.
    url = [u for u in s.requests if "/frame?" in u and f"at={value / 1000}" in u][-1]
    with urllib.request.urlopen(url) as r:
        assert r.read() == want.read_bytes(), f"the frame at {value} is not `sweep preview {' '.join(args)}`"
    shot = tmp_path / f"served-{value}.png"
    s.page.locator("#frame").screenshot(path=str(shot))
    diff = np.abs(small(Image.open(shot)) - small(Image.open(want))).mean()
    print(f"served frame at {value}: {diff:.1f}")
    assert diff < 4, f"the frame shown at {value} differs from the CLI's still by {diff:.1f} of 255 on average"
    return shown


def test_heic_is_previewed_from_server_frames(studio, pictures, tmp_path):
    """A HEIC photo (which the browser does not decode): the server draws the preview, the page
    says so, and each moment is `sweep preview` of the same settings."""
    heic = ROOT / "Tests/Fixtures/images/heic.heic"
    s = studio()
    s.page.set_input_files("#before", str(heic))
    s.page.set_input_files("#after", str(pictures[1]))
    s.page.select_option("#o-look", "vivid")
    s.page.wait_for_function("()=>document.getElementById('frame')?.dataset.spec?.includes('vivid')")
    assert s.page.locator("#stage sweep-compare").count() == 0
    assert s.page.is_visible("#served") and s.page.is_visible("#play")
    assert "Previewed by the server" in s.page.text_content("#served")
    positions = [float(served_frame(s, [heic, pictures[1]], v, tmp_path)["position"]) for v in (250, 500, 750)]
    assert len(set(positions)) == 3
    # A setting the server refuses: its reason, on one line.
    s.page.fill("#o-size", "abc")
    s.page.wait_for_function("()=>document.getElementById('status').textContent.startsWith(\"The server's preview failed\")")
    assert "'abc' is not a size" in s.page.text_content("#status")
    s.errors.clear()  # the browser logs the refused request (400) as an error
    # Pictures the browser shows: the live element again, the server's upload deleted.
    s.page.fill("#o-size", "")
    s.pick(*pictures)
    assert s.page.is_hidden("#served") and s.page.is_hidden("#play")
    s.clean()


def test_clips_are_previewed_from_server_frames(studio, tmp_path):
    """Two clips in two containers (H.264 in QuickTime, VP9 in WebM): each moment shows the
    clip frame the export shows then, from the chosen start, as `sweep preview --start`."""
    mov, webm = tmp_path / "street.mov", tmp_path / "street-graded.webm"
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=10:duration=2", "-c:v", "libx264",
                    "-pix_fmt", "yuv420p", str(mov)], check=True)
    subprocess.run(["ffmpeg", "-v", "error", "-i", str(mov), "-vf", "hue=h=90", "-c:v", "libvpx-vp9", "-b:v", "300k", str(webm)],
                   check=True)
    s = studio()
    s.page.set_input_files("#before", str(mov))
    s.page.set_input_files("#after", str(webm))
    s.page.fill("#o-start", "0.3")
    s.page.wait_for_function("()=>document.getElementById('frame')?.dataset.spec?.includes('0.3')")
    assert "street.mov and street-graded.webm" in s.page.text_content("#served")
    starts = [float(served_frame(s, [mov, webm], v, tmp_path)["start"]) for v in (250, 500, 750)]
    # The clip plays on as the split moves: later moments, later clip frames, from 0.3 s.
    assert 0.3 < starts[0] < starts[1] < starts[2] < 2
    # Playing steps through the timeline's moments, drawn by the server.
    s.page.click("#play")
    s.page.wait_for_function("()=>document.getElementById('play').textContent==='Pause'")
    seen = set()
    for _ in range(40):
        seen.add(s.page.evaluate("()=>document.getElementById('frame').dataset.at"))
        if len(seen) >= 3:
            break
        s.page.wait_for_timeout(250)
    assert len(seen) >= 3
    s.page.click("#play")
    s.clean()


def test_an_animated_gif_is_previewed_from_server_frames(studio, pictures, tmp_path):
    """An animated GIF plays as a clip in the export, so the server draws its moments too."""
    gif = ROOT / "Tests/Fixtures/images/gif-animated.gif"
    s = studio()
    s.page.set_input_files("#before", str(gif))
    s.page.set_input_files("#after", str(pictures[1]))
    s.page.wait_for_function("()=>document.getElementById('frame')?.dataset.spec")
    assert "gif-animated.gif" in s.page.text_content("#served")
    assert served_frame(s, [gif, pictures[1]], 500, tmp_path)["start"]
    s.clean()


def test_server_preview_waits_under_reduced_motion(studio):
    """Under prefers-reduced-motion the server's preview shows the first moment and waits for Play."""
    s = studio(reduced_motion="reduce")
    s.page.set_input_files("#before", str(ROOT / "Tests/Fixtures/images/heic.heic"))
    s.page.wait_for_function("()=>document.getElementById('frame')?.dataset.at==='0'")
    s.page.wait_for_timeout(1000)
    assert s.page.text_content("#play") == "Play"
    assert s.page.evaluate("()=>document.getElementById('frame').dataset.at") == "0"
    s.clean()


def test_server_preview_needs_the_token(studio, secured_server):
    s = studio(url=secured_server)
    s.page.set_input_files("#before", str(ROOT / "Tests/Fixtures/images/heic.heic"))
    s.page.wait_for_function("()=>document.getElementById('status').textContent.startsWith('The server cannot preview')")
    assert "bearer token" in s.page.text_content("#status")
    assert s.page.is_hidden("#served")
    s.errors.clear()  # the refused upload (401)
    s.clean()


def test_controls_are_the_studios(studio, pictures, tmp_path):
    """Help written for the studio, one name per ease, size/frame-rate/quality controls, the
    chosen files named, and Export in view at 1440×900 without scrolling."""
    s = studio(viewport={"width": 1440, "height": 900})
    eases = s.page.eval_on_selector_all("#o-ease option", "os=>os.map(o=>o.textContent)")
    assert "ease-in" in eases and not [e for e in eases if e != e.lower()]
    for name in ("size", "fps", "quality"):
        assert s.page.locator(f"#o-{name}").count() == 1
    helps = s.page.eval_on_selector_all("small[id^=h-o], small[id^=h-]", "hs=>hs.map(h=>h.textContent)")
    assert helps and not [h for h in helps if ".json" in h or "font" in h.lower() or "FILE" in h]
    assert s.page.text_content("#h-vertical") != s.page.text_content("#h-rtl")
    box = s.page.locator("#export").bounding_box()
    assert box and box["y"] >= 0 and box["y"] + box["height"] <= 900
    s.pick(*pictures)
    assert s.page.text_content("#before-name") == pictures[0].name
    assert s.page.text_content("#after-name") == pictures[1].name
    # A drop fills the pickers too, so they do not say "No file chosen".
    transfer = s.page.evaluate_handle("""async()=>{const c=document.createElement('canvas');c.width=64;c.height=48;
        const t=new DataTransfer();c.getContext('2d').fillRect(0,0,64,48);
        t.items.add(new File([await new Promise(r=>c.toBlob(r))],'dropped.png',{type:'image/png'}));return t}""")
    s.page.dispatch_event("#drop", "drop", {"dataTransfer": transfer})
    s.page.wait_for_function("()=>document.getElementById('before-name').textContent==='dropped.png'")
    assert s.page.evaluate("()=>document.getElementById('before').files[0].name") == "dropped.png"
    s.clean()


def png16(path, samples, cicp=None):
    """A 16-bit RGB PNG of `samples` (floats 0…1), with a cICP chunk (primaries, transfer,
    matrix, full range) when given: written chunk by chunk, as Pillow writes no cICP."""
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    h, w, _ = samples.shape
    rows = np.round(np.clip(samples, 0, 1) * 65535).astype(">u2")
    raw = b"".join(b"\0" + rows[y].tobytes() for y in range(h))
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 16, 2, 0, 0, 0))
    if cicp:
        data += chunk(b"cICP", bytes(cicp))
    path.write_bytes(data + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
    return path


def shown_by_the_browser(browser, path, tmp_path):
    """How chromium itself draws the picture at `path` (an <img> of it at its own size)."""
    page = browser.new_page()
    try:
        page.set_content("<body style='margin:0'><img id=i src='data:image/png;base64,%s'></body>"
                         % base64.b64encode(path.read_bytes()).decode())
        page.wait_for_function("()=>document.getElementById('i').complete")
        shot = tmp_path / ("browser-" + path.name)
        page.locator("#i").screenshot(path=str(shot))
        return Image.open(shot)
    finally:
        page.close()


def test_an_hdr_png_is_previewed_from_server_frames(browser, studio, pictures, tmp_path):
    """A 16-bit PNG whose cICP chunk says BT.2020 and PQ: chromium decodes it and converts its
    colours by its own rules, sweep's decoder reads it otherwise, so the server says the
    preview is its to draw (POST /studio/probe), and each moment shown is `sweep preview` of
    the same settings (look-tour's looks included). The same samples tagged sRGB, and an Adobe
    RGB picture (an SDR profile both convert through), stay in the browser. Measured (mean
    difference of 255, small() of each): chromium's own drawing of the PQ picture against
    sweep's still of it 32.0; the frames shown against the CLI's stills 0.5-1.0; chromium's
    drawing of the Adobe RGB fixture against sweep's still 0.0 (6.3 against its samples
    unconverted)."""
    y, x = np.mgrid[0:240, 0:320]
    samples = np.stack([x / 319, y / 239, 1 - x / 319], axis=2) * 0.58  # PQ 0.58: about 200 cd/m²
    hdr = png16(tmp_path / "sunset-pq.png", samples, cicp=(9, 16, 0, 1))
    sdr = png16(tmp_path / "sunset.png", samples, cicp=(1, 13, 0, 1))
    exported = Image.open(cli_still([hdr], [], "hdr-still.png", tmp_path))
    figure = np.abs(small(shown_by_the_browser(browser, hdr, tmp_path)) - small(exported)).mean()
    print(f"hdr: chromium's drawing of the PQ picture against sweep's still: {figure:.1f}")
    s = studio()
    s.page.set_input_files("#before", str(hdr))
    s.page.set_input_files("#after", str(pictures[1]))
    s.page.wait_for_function("()=>document.getElementById('frame')?.dataset.spec")
    assert s.page.locator("#stage sweep-compare").count() == 0
    served = s.page.text_content("#served")
    assert "Previewed by the server" in served and "HDR transfer (PQ)" in served, served
    positions = [float(served_frame(s, [hdr, pictures[1]], v, tmp_path)["position"]) for v in (250, 500, 750)]
    assert len(set(positions)) == 3
    # A preset whose looks change: the server draws the moment's look (vivid at 1.92 s of look-tour).
    s.page.select_option("#o-preset", "look-tour")
    scrub_to(s.page, 300)
    s.page.wait_for_function("()=>{const f=document.getElementById('frame');return f.dataset.spec.includes('look-tour')"
                             "&&f.dataset.at==='0.3'&&f.complete}")
    url = [u for u in s.requests if "/frame?" in u and "look-tour" in u and "at=0.3" in u][-1]
    with urllib.request.urlopen(url) as r:
        assert r.read() == cli_still([hdr, pictures[1]], ["--look", "vivid", "--position", "0.5"], "tour.png",
                                     tmp_path).read_bytes()
    # The same samples tagged as sRGB: the browser draws them as sweep does, so it previews them.
    s.page.set_input_files("#before", str(sdr))
    s.page.wait_for_function("()=>document.querySelector('#stage sweep-compare')?.F")
    assert s.page.is_hidden("#served")
    # A wide-gamut SDR profile (Adobe RGB): both convert through it to sRGB, so the browser previews it.
    adobe = ROOT / "Tests/Fixtures/images/icc-adobergb.png"
    s.page.set_input_files("#before", str(adobe))
    s.page.wait_for_function("()=>document.querySelector('#stage sweep-compare')?.C.w===48")
    assert s.page.is_hidden("#served")
    still = np.asarray(Image.open(cli_still([adobe], ["--no-handle", "--no-labels"], "adobe.png", tmp_path)).convert("RGB"), float)
    drawn = np.asarray(shown_by_the_browser(browser, adobe, tmp_path).convert("RGB"), float)
    untagged = np.asarray(Image.open(adobe).convert("RGB"), float)
    assert np.abs(drawn - still).mean() < 1 < np.abs(untagged - still).mean()
    s.clean()


def smooth_pictures(folder):
    """Two 320x240 pictures without noise (gradients under soft stripes, a tint each)."""
    y, x = np.mgrid[0:240, 0:320]
    stripes = 0.5 + 0.5 * np.sin(x / 9.0) * np.cos(y / 13.0)
    paths = []
    for name, tint in [("garden-before.png", (1.0, 0.7, 0.3)), ("garden-after.png", (0.3, 0.6, 1.0))]:
        img = np.stack([(0.25 + 0.5 * x / 320) * tint[0], (0.25 + 0.5 * y / 240) * tint[1], 0.2 + 0.6 * stripes * tint[2]], axis=2)
        Image.fromarray(np.round(np.clip(img, 0, 1) * 255).astype(np.uint8)).save(folder / name)
        paths.append(folder / name)
    return paths


LOOK_CASES = {
    # name: (what is chosen in the page, [(scrub of 1000, the same moment's `sweep preview` options)])
    # look-tour (6.4 s) rests on each look for a second: 300 is 1.92 s (vivid), 550 3.52 s
    # (noir), 800 5.12 s (dream); 170 is 1.09 s, on the way from the original to vivid, whose
    # look is given by its values (None: the after side's look the element shows then). Its
    # split rests at 0.5.
    "look-tour": ({"preset": "look-tour"}, "T.a.length>2",
                  [(170, None), (300, ["--look", "vivid"]), (550, ["--look", "noir"]), (800, ["--look", "dream"])]),
    # The element's timeline holds the looks as [brightness, contrast, saturation, hue].
    "look": ({"preset": "compare", "look": "vivid"}, "T.a[0][1][2]===1.7&&T.p.length>2",
             [(v, ["--look", "vivid"]) for v in (250, 500, 750)]),
}


@pytest.mark.parametrize("case", sorted(LOOK_CASES))
def test_preview_shows_the_exports_looks(studio, pictures, tmp_path, case):
    """Looks in the live preview (the element's colour matrices) are the export's: at three or
    four moments, the preview against `sweep preview` of the same settings with that moment's
    looks and split. Measured (mean difference of 255): look-tour 0.7-0.9 (against no looks:
    7.0-23.4), compare with --look vivid 0.8-0.9 (against no looks: 6.5-21.9).

    The pictures have no noise: the page scales a picture up before its look is applied, the
    export applies it to the picture's own pixels, and on strong noise (the other tests'
    pictures) the look's clipping then differs (vivid: 3.3 instead of 0.9), which is the
    scaling's, not the look's."""
    settings, mounted, moments = LOOK_CASES[case]
    pictures = smooth_pictures(tmp_path)
    s = studio()
    s.pick(*pictures)
    choose(s.page, settings)
    s.page.wait_for_function("()=>{const e=document.querySelector('#stage sweep-compare'),T=e?.T;return e?.F&&T&&(%s)}" % mounted)
    for scrub, options in moments:
        scrub_to(s.page, scrub)
        position = s.element("e.p")
        if options is None:
            look = [float(v) for v in s.element("e.lk[1]").split(",")]
            assert look != [0, 1, 1, 0] and look[2] not in (1, 1.7), f"{look} is not a look on the way to vivid"
            options = [a for k, v in zip(["brightness", "contrast", "saturation", "hue"], look) for a in (f"--{k}", str(v))]
        shot = tmp_path / f"preview-{scrub}.png"
        s.page.locator("#stage sweep-compare").screenshot(path=str(shot))
        seen = small(Image.open(shot))
        exported = small(Image.open(cli_still(pictures, [*options, "--position", str(position)], f"look-{scrub}.png",
                                              tmp_path)))
        plain = small(Image.open(cli_still(pictures, ["--position", str(position)], f"plain-{scrub}.png", tmp_path)))
        diff, against = np.abs(seen - exported).mean(), np.abs(seen - plain).mean()
        print(f"{case} at {scrub}: {diff:.1f} (against no looks: {against:.1f})")
        assert diff < 4, f"{case} at {scrub}: the preview differs from `sweep preview {' '.join(options)}` by {diff:.1f}"
        assert against > 3 * diff
    s.clean()
