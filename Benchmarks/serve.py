#!/usr/bin/env python3
"""og:image stills through `sweep serve` against a loop of `sweep preview` processes (issue 50).

Both sides make the same still: a 1200x630 og:image (`--format og-image`, PNG) from two 12 MP
JPEGs (4000x3000, upscaled with ffmpeg from bythewater.jpg and bythewater-graded.jpg in
--photos, default /work/shared/fixtures/photos). Loopback, one run, rounds alternating:
- service: `hey -n N -c C -m POST -D BODY -T 'multipart/form-data; boundary=…'` against
  POST /v1/previews of a `sweep serve --jobs C` (the body is built once);
- CLI: C loops of `sweep preview BEFORE AFTER --format og-image -o og.png`, N stills in all.
Prints stills per second per round, the medians (and hey's p50/p99 latency) and the ratio (target: service ≥ 0.9× CLI).

Usage: python3 Benchmarks/serve.py [SWEEP] [--stills N] [--rounds R] [--concurrency C] [--photos DIR]
Needs `hey` (Debian package). Not run by CI.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("sweep", nargs="?", default=str(ROOT / ".build/release/sweep"))
    ap.add_argument("--stills", type=int, default=24)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--concurrency", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--photos", default="/work/shared/fixtures/photos", help="a folder holding " + " and ".join(PHOTOS))
    a = ap.parse_args()
    if not shutil.which("hey"):
        sys.exit("hey is missing: apt-get install hey")
    work = Path(tempfile.mkdtemp(prefix="sweep-servebench-"))
    store = work / "store"
    log = work / "serve.log"
    server = None
    try:
        before, after = twelve_megapixels(a.photos, work)
        body, content_type = multipart(before, after, '{"output": "og.png", "format": "og-image"}')
        body_path = work / "body"
        body_path.write_bytes(body)
        server = subprocess.Popen([a.sweep, "serve", "--port", "0", "--store", str(store), "--jobs", str(a.concurrency)],
                                  stdout=log.open("w"), stderr=subprocess.STDOUT)
        for _ in range(200):
            if "listening on " in log.read_text():
                break
            time.sleep(0.05)
        url = log.read_text().split("listening on ", 1)[1].split()[0]
        # One of each first: page cache, presets, the decode worker's binary.
        service_round(url, body_path, content_type, a.concurrency, a.concurrency)
        cli_round(a.sweep, before, after, work, a.concurrency, a.concurrency)
        service, cli, p50s, p99s = [], [], [], []
        for r in range(a.rounds):
            rate, p50, p99 = service_round(url, body_path, content_type, a.stills, a.concurrency)
            service.append(rate)
            p50s.append(p50)
            p99s.append(p99)
            cli.append(cli_round(a.sweep, before, after, work, a.stills, a.concurrency))
            print(f"round {r + 1}: service {service[-1]:.2f} stills/s, CLI {cli[-1]:.2f} stills/s", flush=True)
        s, c = statistics.median(service), statistics.median(cli)
        print()
        print(f"og:image 1200x630 PNG from two 4000x3000 JPEGs, {a.stills} stills a round, "
              f"concurrency {a.concurrency}, {a.rounds} rounds (medians)")
        print("| what | stills/s | ms per still (per worker) | request latency p50 / p99 |")
        print("| --- | --- | --- | --- |")
        print(f"| `sweep serve`, POST /v1/previews (hey) | {s:.2f} | {1000 * a.concurrency / s:.0f} | "
              f"{1000 * statistics.median(p50s):.0f} / {1000 * statistics.median(p99s):.0f} ms |")
        print(f"| loop of `sweep preview` processes | {c:.2f} | {1000 * a.concurrency / c:.0f} | |")
        print(f"| ratio service / CLI | **{s / c:.2f}×** (target ≥ 0.9×) | | |")
    finally:
        if server:
            server.terminate()
            server.wait(timeout=60)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
