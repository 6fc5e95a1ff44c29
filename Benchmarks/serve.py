#!/usr/bin/env python3
"""og:image stills through `sweep serve` against a loop of `sweep preview` processes.

Both sides make the same still: a 1200x630 og:image (`--format og-image`, PNG) from two 12 MP
JPEGs (4000x3000, upscaled with ffmpeg from bythewater.jpg and bythewater-graded.jpg in
--photos, default /work/shared/fixtures/photos). Loopback, one run, rounds alternating:
- service: `hey -n N -c C -m POST -D BODY -T 'multipart/form-data; boundary=…'` against
  POST /v1/previews of a `sweep serve --jobs C` (the body is built once);
- CLI: C loops of `sweep preview BEFORE AFTER --format og-image -o og.png`, N stills in all.
Prints stills per second per round, the medians (and hey's p50/p99 latency) and the ratio (target: service ≥ 0.9× CLI).

Three more scenarios, each against a fresh `sweep serve` (so its VmHWM is its own):
- gif: 4 s 720x720 GIFs from the two photos as they are (2560x1600). Service: C client threads,
  each POST /v1/renders (spec {"output": "x.gif", "size": "720x720", "duration": 4}), poll
  GET /v1/renders/ID until done, GET …/output; against C loops of
  `sweep render BEFORE AFTER -o x.gif -s 720x720 -d 4`. GIFs per second, medians, ratio (≥ 0.95×).
- overload: `hey -c 200 -z 60s` on POST /v1/renders of small GIFs (320x320, 2 s, from 320x200
  JPEGs) against `sweep serve --jobs 2 --queue 16`. Every status must be 202 or 429 (other
  statuses and connection errors are counted as failures); every 202 must reach `done`; every
  finished output is downloaded and checked (GIF trailer 0x3B, Content-Length); the server's
  VmHWM must stay under jobs × one render's peak RSS (`/usr/bin/time -v sweep render`, same
  render) + 200 MB.
- memory: 1,000 tiny renders (160x160, 1 s GIFs from 320x200 JPEGs) through POST /v1/renders,
  C at a time, each polled and downloaded; the server's VmRSS after 100 and after 1,000 (≤ 5 %).

Usage: python3 Benchmarks/serve.py [SWEEP] [--only og,gif,overload,memory] [--stills N] [--gifs N]
       [--rounds R] [--concurrency C] [--overload-seconds S] [--renders N] [--photos DIR]
Needs `hey` (Debian package). Not run by CI.
"""
import argparse
import http.client
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import threading
import urllib.parse
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PHOTOS = ["bythewater.jpg", "bythewater-graded.jpg"]


def twelve_megapixels(photos, folder):
    """The two 4000x3000 JPEGs (quality as a phone's, ~q 2), upscaled from `photos`."""
    out = []
    for i, src in enumerate(Path(photos) / p for p in PHOTOS):
        dst = folder / f"{'before' if i == 0 else 'after'}-12mp.jpg"
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", str(src), "-vf", "scale=4000:3000:flags=lanczos",
                        "-q:v", "2", str(dst)], check=True)
        out.append(dst)
    return out


def multipart(before, after, spec):
    boundary = "sweepbench" + uuid.uuid4().hex
    parts = []
    for name, path in [("before", before), ("after", after)]:
        parts.append((f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{path.name}"\r\n'
                      f"Content-Type: image/jpeg\r\n\r\n").encode() + path.read_bytes() + b"\r\n")
    parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="spec"\r\n\r\n{spec}\r\n'.encode())
    return b"".join(parts) + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def service_round(url, body_path, content_type, n, c):
    """Stills per second through hey (its wall time), and the requests' p50 and p99 latency
    in seconds (hey's CSV of every request)."""
    start = time.monotonic()
    out = subprocess.run(["hey", "-n", str(n), "-c", str(c), "-m", "POST", "-D", str(body_path), "-T", content_type,
                          "-t", "120", "-o", "csv", url + "/v1/previews"], check=True, capture_output=True, text=True).stdout
    wall = time.monotonic() - start
    rows = [line.split(",") for line in out.splitlines()[1:] if line.strip()]
    codes = [int(r[6]) for r in rows]
    assert codes == [200] * n, f"not every request got 200: {codes}"
    times = sorted(float(r[0]) for r in rows)
    return n / wall, times[len(times) // 2], times[min(len(times) - 1, int(len(times) * 0.99))]


def cli_round(sweep, before, after, folder, n, c):
    def one(i):
        subprocess.run([sweep, "preview", str(before), str(after), "--format", "og-image", "-q",
                        "-o", str(folder / f"og-{i % c}.png")], check=True)
    start = time.monotonic()
    with ThreadPoolExecutor(c) as pool:
        list(pool.map(one, range(n)))
    return n / (time.monotonic() - start)


def scaled(photos, folder, size, tag):
    """The two photos scaled to `size` (WxH) with ffmpeg, as JPEGs."""
    out = []
    for i, src in enumerate(Path(photos) / p for p in PHOTOS):
        dst = folder / f"{'before' if i == 0 else 'after'}-{tag}.jpg"
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", str(src), "-vf", f"scale={size.replace('x', ':')}",
                        "-q:v", "2", str(dst)], check=True)
        out.append(dst)
    return out


def start_server(sweep, work, name, jobs, *extra):
    """A fresh `sweep serve` with its own store and log; returns the process and its URL."""
    log = work / f"{name}.log"
    server = subprocess.Popen([sweep, "serve", "--port", "0", "--store", str(work / f"store-{name}"),
                               "--jobs", str(jobs), *extra], stdout=log.open("w"), stderr=subprocess.STDOUT)
    for _ in range(200):
        if "listening on " in log.read_text():
            break
        time.sleep(0.05)
    return server, log.read_text().split("listening on ", 1)[1].split()[0]


def stop_server(server):
    server.terminate()
    return server.wait(timeout=60)


def memory_kb(pid):
    """VmRSS and VmHWM of `pid` in kB."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])


def call(url, method, path, body=None, headers=None):
    """One request on a fresh connection: (status, headers, body)."""
    u = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=300)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        r = conn.getresponse()
        return r.status, dict(r.getheaders()), r.read()
    finally:
        conn.close()


def is_gif(data):
    return data[:6] in (b"GIF87a", b"GIF89a") and data[-1:] == b"\x3b"


def fetch_output(url, rid):
    """GET /v1/renders/ID/output, checked: 200, Content-Length matches, a whole GIF."""
    status, headers, data = call(url, "GET", f"/v1/renders/{rid}/output")
    assert status == 200, f"{rid}/output: {status} {data[:200]!r}"
    assert int(headers["Content-Length"]) == len(data), f"{rid}/output: short body"
    assert is_gif(data), f"{rid}/output: not a whole GIF ({len(data)} bytes, ends {data[-1:]!r})"
    return len(data)


def wait_done(url, rid, poll=0.05):
    while True:
        status, _, data = call(url, "GET", f"/v1/renders/{rid}")
        state = json.loads(data)["state"] if status == 200 else None
        if state == "done":
            return
        assert status == 200 and state in ("queued", "running"), f"{rid}: {status} {data[:300]!r}"
        time.sleep(poll)


def render_via_api(url, body, content_type, delete=False):
    """POST /v1/renders, poll to done, download (then DELETE if asked): the seconds it took end to end."""
    start = time.monotonic()
    status, _, data = call(url, "POST", "/v1/renders", body, {"Content-Type": content_type})
    assert status == 202, f"POST /v1/renders: {status} {data[:300]!r}"
    rid = json.loads(data)["id"]
    wait_done(url, rid)
    fetch_output(url, rid)
    if delete:
        status, _, data = call(url, "DELETE", f"/v1/renders/{rid}")
        assert status // 100 == 2, f"DELETE {rid}: {status} {data[:300]!r}"
    return time.monotonic() - start


def percentile(values, q):
    v = sorted(values)
    return v[min(len(v) - 1, int(len(v) * q))]


def gif_service_round(url, body, content_type, n, c):
    start = time.monotonic()
    with ThreadPoolExecutor(c) as pool:
        times = list(pool.map(lambda _: render_via_api(url, body, content_type), range(n)))
    return n / (time.monotonic() - start), percentile(times, 0.5), percentile(times, 0.99)


def gif_cli_round(sweep, before, after, folder, n, c):
    def one(i):
        subprocess.run([sweep, "render", str(before), str(after), "-o", str(folder / f"x-{i % c}.gif"),
                        "-s", "720x720", "-d", "4", "-q"], check=True)
    start = time.monotonic()
    with ThreadPoolExecutor(c) as pool:
        list(pool.map(one, range(n)))
    return n / (time.monotonic() - start)


def side_by_side(a, work, label, unit, count, service_round, cli_round):
    """Against a fresh `sweep serve` (its own store): one of each first (page cache, presets,
    the decode worker's binary), then `a.rounds` rounds of `count` through the service
    (`service_round(url, n)`) and the CLI (`cli_round(n)`) in turn. Returns the medians
    (service rate, CLI rate, service p50 and p99 latency in seconds) and the server's VmRSS
    and VmHWM (KiB) at the end."""
    server, url = start_server(a.sweep, work, label, a.concurrency)
    try:
        service_round(url, a.concurrency)
        cli_round(a.concurrency)
        service, cli, p50s, p99s = [], [], [], []
        for r in range(a.rounds):
            rate, p50, p99 = service_round(url, count)
            service.append(rate)
            p50s.append(p50)
            p99s.append(p99)
            cli.append(cli_round(count))
            print(f"{label} round {r + 1}: service {service[-1]:.3f} {unit}/s, CLI {cli[-1]:.3f} {unit}/s", flush=True)
        rss, hwm = memory_kb(server.pid)
    finally:
        stop_server(server)
    return tuple(statistics.median(x) for x in (service, cli, p50s, p99s)) + (rss, hwm)


def side_by_side_rows(rows, measured, service_what, cli_what, ratio_what, unit, digits, target):
    """The table rows of one side-by-side scenario: the service, the CLI, and their ratio
    against `target`."""
    s, c, p50, p99, rss, hwm = measured
    rows.append(f"| {service_what} | {s:.{digits}f} {unit}/s | {1000 * p50:.0f} / {1000 * p99:.0f} ms | "
                f"{rss // 1024} / {hwm // 1024} MB |")
    rows.append(f"| {cli_what} | {c:.{digits}f} {unit}/s | | |")
    rows.append(f"| {ratio_what} | **{s / c:.2f}×** (target ≥ {target}×: {'met' if s / c >= target else 'missed'}) | | |")


def bench_og(a, work, rows):
    before, after = twelve_megapixels(a.photos, work)
    body, content_type = multipart(before, after, '{"output": "og.png", "format": "og-image"}')
    body_path = work / "body"
    body_path.write_bytes(body)
    measured = side_by_side(
        a, work, "og", "stills", a.stills,
        lambda url, n: service_round(url, body_path, content_type, n, a.concurrency),
        lambda n: cli_round(a.sweep, before, after, work, n, a.concurrency))
    side_by_side_rows(
        rows, measured,
        f"og:image 1200x630 PNG from two 4000x3000 JPEGs, {a.stills}/round, `sweep serve`, POST /v1/previews (hey)",
        "og:image, loop of `sweep preview` processes", "og:image ratio service / CLI", "stills", 2, 0.9)


def bench_gif(a, work, rows):
    before, after = [Path(a.photos) / p for p in PHOTOS]
    body, content_type = multipart(before, after, '{"output": "x.gif", "size": "720x720", "duration": 4}')
    measured = side_by_side(
        a, work, "gif", "GIFs", a.gifs,
        lambda url, n: gif_service_round(url, body, content_type, n, a.concurrency),
        lambda n: gif_cli_round(a.sweep, before, after, work, n, a.concurrency))
    side_by_side_rows(
        rows, measured,
        f"4 s 720x720 GIF from the 2560x1600 photos, {a.gifs}/round, `sweep serve`, POST /v1/renders + poll + /output",
        "4 s GIF, loop of `sweep render` processes", "4 s GIF ratio service / CLI", "GIFs", 3, 0.95)


def bench_overload(a, work, rows):
    before, after = scaled(a.photos, work, "320x200", "small")
    spec = '{"output": "s.gif", "size": "320x320", "duration": 2}'
    out = subprocess.run(["/usr/bin/time", "-v", a.sweep, "render", str(before), str(after), "-o", str(work / "one.gif"),
                          "-s", "320x320", "-d", "2", "-q"], check=True, capture_output=True, text=True).stderr
    one_peak = int(out.split("Maximum resident set size (kbytes):", 1)[1].split()[0])
    body, content_type = multipart(before, after, spec)
    body_path = work / "body-small"
    body_path.write_bytes(body)
    jobs, queue = 2, 16
    server, url = start_server(a.sweep, work, "overload", jobs, "--queue", str(queue))
    peak, stop = [0], threading.Event()

    def sample():
        while not stop.is_set():
            try:
                peak[0] = max(peak[0], memory_kb(server.pid)[1])
            except (OSError, KeyError):
                pass
            time.sleep(0.2)
    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        start = time.monotonic()
        # hey's text summary, not its CSV: the CSV leaves out requests that got no response, while
        # the summary counts them under "Error distribution".
        out = subprocess.run(["hey", "-c", "200", "-z", f"{a.overload_seconds}s", "-m", "POST", "-D", str(body_path),
                              "-T", content_type, "-t", "60", url + "/v1/renders"],
                             capture_output=True, text=True).stdout
        wall = time.monotonic() - start
        (work / "overload-hey.txt").write_text(out)
        codes = Counter({int(m[0]): int(m[1]) for m in re.findall(r"\[(\d+)\]\s+(\d+) responses", out)})
        errors = re.findall(r"\[(\d+)\]\s+(.+)", out.split("Error distribution:", 1)[1]) if "Error distribution:" in out else []
        latency = {int(m[0]): float(m[1]) for m in re.findall(r"(\d+)% in ([\d.]+) secs", out)}
        accepted = codes.get(202, 0)
        # Let the queue drain, then every accepted render must be done and whole.
        store = work / "store-overload"
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            states = Counter(json.loads((d / "record.json").read_text()).get("state")
                             for d in store.iterdir() if (d / "record.json").exists())
            if states.get("done", 0) + states.get("failed", 0) >= accepted and not states.get("queued") and not states.get("running"):
                break
            time.sleep(0.5)
        ids = [d.name for d in store.iterdir() if d.is_dir()]
        done = [i for i in ids if json.loads((store / i / "record.json").read_text()).get("state") == "done"]
        checked = sum(1 for i in done if fetch_output(url, i))
        leftovers = [str(f.relative_to(store)) for i in ids for f in (store / i).rglob("*")
                     if f.is_file() and f.parent.name != "out" and f.name != "record.json"]
        stop.set()
        sampler.join()
        rss, hwm = memory_kb(server.pid)
        peak[0] = max(peak[0], hwm)
    finally:
        stop.set()
        rc = stop_server(server)
    bad = {k: v for k, v in codes.items() if k not in (202, 429)}
    for count, what in errors:
        # One line per kind of error: the client's port differs in each.
        what = re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", what.strip())
        bad[what] = bad.get(what, 0) + int(count)
    limit = jobs * one_peak + 200 * 1024
    print(f"overload: {sum(codes.values())} responses in {wall:.1f} s: {dict(codes)}; {len(ids)} renders in the store, "
          f"{len(done)} done ({checked} downloaded and whole), {accepted} accepted; leftovers {leftovers[:5]}; "
          f"server exit {rc}", flush=True)
    for count, what in errors:
        print(f"overload: {count} × {what.strip()}", flush=True)
    rows.append(f"| overload: hey -c 200 -z {a.overload_seconds}s, POST /v1/renders (320x320 2 s GIF), --jobs {jobs} --queue {queue} | "
                f"{accepted / wall:.2f} renders/s accepted, {sum(codes.values()) / wall:.0f} responses/s | "
                f"{1000 * latency.get(50, 0):.0f} / {1000 * latency.get(99, 0):.0f} ms (202 and 429 together) | "
                f"{rss // 1024} / {peak[0] // 1024} MB |")
    rows.append(f"| overload statuses | 202: {accepted}, 429: {codes.get(429, 0)}, other: {sum(bad.values())} {bad or ''} "
                f"(target: only 2xx/429: {'met' if not bad else 'missed'}) | | |")
    rows.append(f"| overload outputs | {len(done)} of {accepted} accepted done, {checked} downloaded whole (GIF trailer, Content-Length); "
                f"{len(leftovers)} stray files | | |")
    rows.append(f"| overload peak RSS vs {jobs} × one render's peak ({one_peak // 1024} MB, /usr/bin/time -v) + 200 MB "
                f"= {limit // 1024} MB | **{peak[0] // 1024} MB** ({'met' if peak[0] <= limit else 'missed'}) | | |")


def bench_memory(a, work, rows):
    before, after = scaled(a.photos, work, "320x200", "small")
    body, content_type = multipart(before, after, '{"output": "t.gif", "size": "160x160", "duration": 1}')
    server, url = start_server(a.sweep, work, "memory", a.concurrency)
    marks, times = {}, []
    try:
        start = time.monotonic()
        done = 0
        # VmRSS after every 100 (printed), so that growth can be told from warm-up.
        for batch in [100] * (a.renders // 100) + ([a.renders % 100] if a.renders % 100 else []):
            with ThreadPoolExecutor(a.concurrency) as pool:
                times += list(pool.map(lambda _: render_via_api(url, body, content_type, a.delete), range(batch)))
            done += batch
            time.sleep(0.5)
            marks[done] = memory_kb(server.pid)
            print(f"memory: after {done} renders VmRSS {marks[done][0] // 1024} MB, VmHWM {marks[done][1] // 1024} MB",
                  flush=True)
        wall = time.monotonic() - start
    finally:
        stop_server(server)
    (r100, _), (rn, hwm) = marks[100], marks[a.renders]
    growth = rn / r100 - 1
    deleted = " + DELETE" if a.delete else ""
    rows.append(f"| memory: {a.renders} renders (160x160 1 s GIF), POST /v1/renders + poll + /output{deleted}, {a.concurrency} at a time | "
                f"{a.renders / wall:.2f} renders/s | {1000 * percentile(times, 0.5):.0f} / {1000 * percentile(times, 0.99):.0f} ms | "
                f"{rn // 1024} / {hwm // 1024} MB |")
    rows.append(f"| memory: VmRSS after 100 → after {a.renders} | {r100 / 1024:.1f} → {rn / 1024:.1f} MB, "
                f"**{100 * growth:+.1f} %** (target within 5 %: {'met' if abs(growth) <= 0.05 else 'missed'}) | | |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("sweep", nargs="?", default=str(ROOT / ".build/release/sweep"))
    ap.add_argument("--only", default="og,gif,overload,memory", help="scenarios, comma-separated: og,gif,overload,memory")
    ap.add_argument("--stills", type=int, default=24)
    ap.add_argument("--gifs", type=int, default=4, help="GIFs a round in the gif scenario")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--concurrency", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--overload-seconds", type=int, default=60)
    ap.add_argument("--renders", type=int, default=1000, help="renders in the memory scenario (RSS after 100 and after N)")
    ap.add_argument("--delete", action="store_true", help="memory scenario: DELETE each render once downloaded")
    ap.add_argument("--photos", default="/work/shared/fixtures/photos", help="a folder holding " + " and ".join(PHOTOS))
    a = ap.parse_args()
    if not shutil.which("hey"):
        sys.exit("hey is missing: apt-get install hey")
    scenarios = {"og": bench_og, "gif": bench_gif, "overload": bench_overload, "memory": bench_memory}
    only = a.only.split(",")
    unknown = [s for s in only if s not in scenarios]
    if unknown:
        sys.exit(f"unknown scenario: {', '.join(unknown)}")
    work = Path(tempfile.mkdtemp(prefix="sweep-servebench-"))
    rows = []
    try:
        for name in only:
            scenarios[name](a, work, rows)
    finally:
        print()
        print(f"`sweep serve` on loopback, concurrency (--jobs and CLI processes) {a.concurrency}, {a.rounds} rounds (medians); "
              "RSS is the server's VmRSS at the end / its peak (VmHWM)")
        print("| what | throughput | latency p50 / p99 | server RSS / peak |")
        print("| --- | --- | --- | --- |")
        for row in rows:
            print(row)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
