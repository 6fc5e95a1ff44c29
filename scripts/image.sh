#!/usr/bin/env bash
# `make image`: an OCI image of sweep built without a container engine (as root, Debian 12).
# A minbase Debian 12 root filesystem with only sweep's runtime libraries and fonts, the
# installed binary, presets and man page, and the Swift runtime the binary links to; committed
# with umoci to .build/image/oci (tag sweep:latest) and copied by skopeo to a docker-archive
# tarball, .build/image/sweep.tar.
#
# SWEEP_BIN=PATH installs that binary instead of building .build/release/sweep first.
set -euo pipefail
cd "$(dirname "$0")/.."
root_dir=$PWD
out=$root_dir/.build/image
mkdir -p "$out"

# The runtime packages behind the libraries the binary links to directly (apt adds what they
# need), plus fonts: labels fall back on DejaVu, Noto covers other scripts and emoji.
# fonts-noto-cjk is left out: 89 MB of already-compressed OpenType would take the image from
# about 190 to 276 MB compressed, past the 250 MB target.
RUNTIME_PACKAGES="libc6 zlib1g libgif7 libavcodec59 libavformat59 libavutil57 libswscale6 libswresample4 libavfilter8
  libpango-1.0-0 libpangocairo-1.0-0 libharfbuzz0b libglib2.0-0 libcairo2 liblcms2-2 libheif1 libwebp7 libwebpdemux2
  libseccomp2 libmicrohttpd12 libstdc++6 libgcc-s1 fontconfig fonts-dejavu-core fonts-noto-core
  fonts-noto-color-emoji"
# The mirror apt uses here, so that the image matches the libraries sweep was built against.
MIRROR=${MIRROR:-$({ cat /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null || true; } |
  sed -n 's/^URIs: *\(http[^ ]*debian\)$/\1/p' | head -1)}
MIRROR=${MIRROR:-http://deb.debian.org/debian}

for tool in debootstrap umoci skopeo; do
  command -v "$tool" >/dev/null || { echo "image: $tool is missing (apt-get install debootstrap umoci skopeo)" >&2; exit 1; }
done

stage=$out/stage
bundle=$out/bundle
rm -rf "$stage" "$bundle"
mkdir -p "$stage"
# The binary, presets and man page exactly as `make install` lays them out.
if [ -n "${SWEEP_BIN:-}" ]; then
  make -s -o build install DESTDIR="$stage" PREFIX=/usr SWEEP_BIN="$SWEEP_BIN"
else
  make -s install DESTDIR="$stage" PREFIX=/usr
fi

# The base (debootstrap + runtime packages) is the slow part: cached as a tarball, rebuilt
# when the package list or mirror changes.
key=$(printf '%s\n' "$MIRROR" $RUNTIME_PACKAGES | sha256sum | cut -c1-12)
base=$out/base-$key.tar
if [ ! -s "$base" ]; then
  rootfs=$out/base-rootfs
  rm -rf "$rootfs"
  echo "image: debootstrap bookworm from $MIRROR"
  debootstrap --variant=minbase bookworm "$rootfs" "$MIRROR" >"$out/debootstrap.log" 2>&1 \
    || { tail -20 "$out/debootstrap.log" >&2; exit 1; }
  mount -t proc proc "$rootfs/proc"
  trap 'umount "$rootfs/proc" 2>/dev/null || true' EXIT
  # Recommends would pull in X, GPU and codec extras sweep never loads.
  chroot "$rootfs" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    $RUNTIME_PACKAGES >"$out/apt.log" 2>&1 || { tail -20 "$out/apt.log" >&2; exit 1; }
  chroot "$rootfs" fc-cache -f >/dev/null
  umount "$rootfs/proc"
  trap - EXIT
  # What a container never uses: package caches and lists, docs, man pages, locales.
  rm -rf "$rootfs"/var/cache/apt/* "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/debconf/*-old \
    "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* \
    "$rootfs"/usr/share/locale/* "$rootfs"/usr/share/lintian "$rootfs"/var/log/* "$rootfs"/tmp/*
  tar -C "$rootfs" --numeric-owner -cf "$base.tmp" .
  mv "$base.tmp" "$base"
  rm -rf "$rootfs"
fi

# umoci gives an empty bundle; its rootfs becomes the base plus sweep.
rm -rf "$out/oci"
umoci init --layout "$out/oci"
umoci new --image "$out/oci:sweep"
umoci unpack --image "$out/oci:sweep" "$bundle" >/dev/null
rootfs=$bundle/rootfs
tar -C "$rootfs" --numeric-owner -xf "$base"
cp -a "$stage"/usr/. "$rootfs"/usr/

# The Swift runtime: the libraries ldd resolves from outside the system's (the toolchain's).
bin=${SWEEP_BIN:-.build/release/sweep}
mkdir -p "$rootfs/usr/lib/swift/linux"
ldd "$bin" | awk '$3 ~ /^\// {print $3}' | while read -r lib; do
  case "$lib" in /lib/* | /usr/lib/*) ;; *) cp -L "$lib" "$rootfs/usr/lib/swift/linux/" ;; esac
done
echo /usr/lib/swift/linux >"$rootfs/etc/ld.so.conf.d/swift.conf"
chroot "$rootfs" ldconfig
# Every library resolves inside the image, or the image is useless.
if chroot "$rootfs" ldd /usr/bin/sweep | grep -q 'not found'; then
  chroot "$rootfs" ldd /usr/bin/sweep | grep 'not found' >&2; exit 1
fi

# An unprivileged user (65532, as distroless's nonroot) owning a working folder for stores.
echo 'nonroot:x:65532:65532:nonroot:/home/nonroot:/usr/sbin/nologin' >>"$rootfs/etc/passwd"
echo 'nonroot:x:65532:' >>"$rootfs/etc/group"
install -d -o 65532 -g 65532 "$rootfs/home/nonroot" "$rootfs/data"

umoci repack --image "$out/oci:sweep" "$bundle" >/dev/null
# Bare `sweep` in a container prints its help; `serve --host 0.0.0.0` needs a --token.
umoci config --image "$out/oci:sweep" --tag latest \
  --config.entrypoint sweep --config.cmd --help \
  --config.user 65532:65532 --config.workingdir /data --config.exposedports 8080/tcp \
  --config.env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --config.label org.opencontainers.image.title=sweep
umoci rm --image "$out/oci:sweep"
umoci gc --layout "$out/oci"
rm -rf "$bundle" "$stage"

rm -f "$out/sweep.tar"
skopeo copy --quiet "oci:$out/oci:latest" "docker-archive:$out/sweep.tar:sweep:latest"
echo "image: $out/oci (sweep:latest), $out/sweep.tar ($(du -m "$out/sweep.tar" | cut -f1) MB)"
