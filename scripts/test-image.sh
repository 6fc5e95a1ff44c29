#!/usr/bin/env bash
# `make test-image`: checks the image `make image` built, without a container engine (as root).
# Unpacks .build/image/oci with umoci and runs the image's own sweep inside its root
# filesystem (chroot, as the image's uid 65532, in a private mount namespace): `sweep demo`,
# then `sweep serve` with one GIF rendered through the API by curl from the host. Prints the
# image's size. Every wait is bounded; any failure exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$PWD/.build/image
[ -f "$out/oci/index.json" ] || { echo "test-image: no image in $out/oci (make image first)" >&2; exit 1; }

work=$(mktemp -d "$out/test.XXXXXX")
server=
cleanup() {
  if [ -n "$server" ] && kill -0 "$server" 2>/dev/null; then kill -KILL "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "test-image: FAIL: $*" >&2; exit 1; }

umoci unpack --image "$out/oci:latest" "$work/bundle" >/dev/null
rootfs=$work/bundle/rootfs

# Runs a command inside the image as its user would see it: /proc and /dev mounted in a
# mount namespace of its own (they vanish with it), uid 65532, only the image's PATH.
# `exec` all the way down, so the pid is sweep's own and signals reach it.
in_image=(unshare --mount sh -c 'mount -t proc proc "$0/proc" && mount --rbind /dev "$0/dev" && exec "$@"' "$rootfs"
  chroot --userspec=65532:65532 "$rootfs" env -i PATH=/usr/bin:/bin HOME=/home/nonroot)

# 1. The CLI: the demo's GIF and MP4, both non-empty.
timeout 300 "${in_image[@]}" sweep demo -o /tmp/out --quiet || fail "sweep demo exited $?"
for f in demo.gif demo.mp4; do
  [ -s "$rootfs/tmp/out/$f" ] || fail "sweep demo wrote no $f"
done
echo "test-image: sweep demo: demo.gif $(stat -c %s "$rootfs/tmp/out/demo.gif") B, demo.mp4 $(stat -c %s "$rootfs/tmp/out/demo.mp4") B"

# 2. The service: a GIF through the API. Port 0 picks a free port; sweep prints the URL.
"${in_image[@]}" sweep serve --port 0 --store /tmp/store --grace 5s >"$work/serve.log" 2>&1 &
server=$!
url=
for _ in $(seq 1 100); do
  url=$(sed -n 's/^listening on //p' "$work/serve.log" | head -1)
  [ -n "$url" ] && break
  kill -0 "$server" 2>/dev/null || { cat "$work/serve.log" >&2; fail "sweep serve exited at start"; }
  sleep 0.2
done
[ -n "$url" ] || fail "sweep serve printed no URL within 20 s"
curl -fsS --max-time 5 "$url/v1/health" >/dev/null || fail "GET /v1/health"

fixture=Tests/Fixtures/images/png-rgb8.png
posted=$(curl -sS --max-time 30 -F "before=@$fixture" -F "after=@$fixture" \
  -F 'spec={"output":"out.gif","size":"96x72","fps":"10","duration":"1"}' "$url/v1/renders") || fail "POST /v1/renders"
id=$(printf '%s' "$posted" | sed -n 's/.*"id" *: *"\([0-9a-f]*\)".*/\1/p')
[ -n "$id" ] || fail "POST /v1/renders answered: $posted"
state=
for _ in $(seq 1 120); do
  state=$(curl -fsS --max-time 5 "$url/v1/renders/$id" | sed -n 's/.*"state" *: *"\([a-z]*\)".*/\1/p')
  case "$state" in done) break ;; failed | cancelled) fail "render $id is $state" ;; esac
  sleep 0.5
done
[ "$state" = done ] || fail "render $id still '$state' after 60 s"
curl -fsS --max-time 30 -o "$work/out.gif" "$url/v1/renders/$id/output" || fail "GET /v1/renders/$id/output"
[ "$(head -c 6 "$work/out.gif")" = GIF89a ] || fail "the output is not a GIF"
# A GIF ends with its trailer byte, 0x3B: a file served half-written would not.
[ "$(tail -c 1 "$work/out.gif" | od -An -tx1 | tr -d ' ')" = 3b ] || fail "the GIF has no trailer"
echo "test-image: sweep serve: rendered $(stat -c %s "$work/out.gif") B GIF through $url"

# SIGTERM drains and exits; bounded by --grace plus a margin.
kill -TERM "$server"
for _ in $(seq 1 50); do kill -0 "$server" 2>/dev/null || break; sleep 0.2; done
kill -0 "$server" 2>/dev/null && fail "sweep serve still running 10 s after SIGTERM"
wait "$server" || fail "sweep serve exited $? after SIGTERM"
server=

# 3. The size: what a registry stores and sends (compressed layers) and what a node unpacks.
compressed=$(python3 - "$out/oci" <<'EOF'
import json, sys
layout = sys.argv[1]
def blob(digest):
    return json.load(open(f"{layout}/blobs/{digest.replace(':', '/')}"))
manifest = blob(json.load(open(f"{layout}/index.json"))["manifests"][0]["digest"])
print(sum(layer["size"] for layer in manifest["layers"]))
EOF
)
rm -rf "$rootfs/tmp/out" "$rootfs/tmp/store"
unpacked=$(du -sb "$rootfs" | cut -f1)
echo "test-image: image size: $((compressed / 1000000)) MB compressed, $((unpacked / 1000000)) MB unpacked"
[ "$compressed" -lt 250000000 ] || fail "the image is over 250 MB compressed"
echo "test-image: ok"
