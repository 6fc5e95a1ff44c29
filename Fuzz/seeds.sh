#!/usr/bin/env bash
# Makes the seed corpus of a media fuzz target in a folder: small files (each under 64 KB)
# from FFmpeg's CLI, img2webp (webp) and heif-enc/avifenc (libheif-examples, libavif-bin).
#   Fuzz/seeds.sh TARGET FOLDER     (TARGET: probe, heif, webp-anim, audio, job-clip)
set -euo pipefail
cd "$(dirname "$0")/.."
t=$1 out=$2
mkdir -p "$out"
# The tools, from Debian's packages, when missing (ffmpeg comes with `make deps`).
need=""
for tool in ffmpeg:ffmpeg img2webp:webp heif-enc:libheif-examples avifenc:libavif-bin; do
  command -v "${tool%%:*}" >/dev/null || need="$need ${tool#*:}"
done
if [ -n "$need" ] && [ "$t" != job-clip ]; then
  sudo=$([ "$(id -u)" = 0 ] || echo sudo)
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $need >/dev/null
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ff() { ffmpeg -nostdin -hide_banner -loglevel error -y "$@"; }
# A 32x32 picture that moves, and 0.2 s of a tone.
src=(-f lavfi -i "testsrc2=size=32x32:rate=10:duration=0.4")
tone=(-f lavfi -i "sine=frequency=440:sample_rate=44100:duration=0.2")

case $t in
probe)
  ff "${src[@]}" -c:v libx264 -preset ultrafast -pix_fmt yuv420p "$out/h264.mp4"
  ff "${src[@]}" "${tone[@]}" -c:v libx264 -preset ultrafast -pix_fmt yuv420p -c:a aac -shortest "$out/h264-aac.mp4"
  ff "${src[@]}" -c:v libx264 -preset ultrafast -bf 2 -g 2 -pix_fmt yuv420p "$out/h264-bframes.mkv"
  ff "${src[@]}" -c:v libvpx-vp9 -deadline realtime -cpu-used 8 "$out/vp9.webm"
  ff "${src[@]}" -c:v libvpx -deadline realtime "$out/vp8.webm"
  ff "${src[@]}" -c:v mpeg4 "$out/mpeg4.mov"
  ff "${src[@]}" -c:v libx264 -preset ultrafast -metadata:s:v rotate=90 "$out/rotated.mov"
  ff "${src[@]}" -c:v mpeg2video "$out/mpeg2.ts"
  ff "${src[@]}" -c:v libx264 -preset ultrafast "$out/h264.ts"
  ff "${src[@]}" -c:v mjpeg -q:v 10 "$out/mjpeg.avi"
  ff "${src[@]}" -c:v flv "$out/flv1.flv"
  ff "${src[@]}" -c:v libx265 -preset ultrafast -x265-params log-level=none "$out/hevc.mp4"
  ff "${src[@]}" -c:v libaom-av1 -cpu-used 8 -frames:v 2 "$out/av1.mp4" || true
  ff "${src[@]}" -c:v prores_ks -profile:v 0 -frames:v 1 "$out/prores.mov"
  ff "${src[@]}" -c:v ffv1 -frames:v 2 "$out/ffv1.mkv"
  ff "${src[@]}" -c:v qtrle -frames:v 2 "$out/qtrle.mov"
  ff "${src[@]}" -vf setsar=12/11 -c:v libx264 -preset ultrafast "$out/sar.mp4"
  ff "${src[@]}" -c:v libx264 -preset ultrafast -color_trc smpte2084 -color_primaries bt2020 -colorspace bt2020nc "$out/pq.mp4"
  ff "${src[@]}" -frames:v 3 "$out/anim.gif"
  ff "${src[@]}" -frames:v 3 -plays 0 -f apng "$out/anim.apng"
  ;;
heif)
  ff -f lavfi -i "testsrc2=size=32x32" -frames:v 1 "$tmp/p.png"
  ff -f lavfi -i "testsrc2=size=64x64" -frames:v 1 "$tmp/p64.png"
  ff -f lavfi -i "testsrc2=size=128x128" -frames:v 1 "$tmp/p128.png"
  ff -f lavfi -i "testsrc2=size=32x32,format=rgba,geq=r='r(X,Y)':a='X*8'" -frames:v 1 "$tmp/alpha.png"
  heif-enc -q 30 "$tmp/p.png" -o "$out/plain.heic" >/dev/null
  heif-enc -q 30 "$tmp/alpha.png" -o "$out/alpha.heic" >/dev/null
  heif-enc -q 30 -t 16 "$tmp/p64.png" -o "$out/thumb.heic" >/dev/null
  heif-enc -q 30 "$tmp/p.png" "$tmp/p64.png" -o "$out/two.heic" >/dev/null
  heif-enc -q 30 -A "$tmp/p.png" -o "$out/plain.avif" >/dev/null
  heif-enc -q 30 -A "$tmp/alpha.png" -o "$out/alpha.avif" >/dev/null
  # A 2x2 grid of 64x64 tiles, avifenc's smallest (heif-enc 1.15 cannot write grids).
  avifenc -s 10 --min 50 --max 60 --grid 2x2 "$tmp/p128.png" "$out/grid.avif" >/dev/null
  # The HEIC/AVIF fixtures: iPhone-like colour, rotations, a grid, an overlay, a predicted primary.
  cp Tests/Fixtures/images/*.heic Tests/Fixtures/images/*.avif "$out/"
  ;;
webp-anim)
  for i in 0 1 2; do ff -f lavfi -i "testsrc2=size=32x32" -vf "hue=h=$((i * 90))" -frames:v 1 "$tmp/f$i.png"; done
  ff -f lavfi -i "testsrc2=size=32x32,format=rgba,geq=r='r(X,Y)':g='g(X,Y)':b='b(X,Y)':a='X*8'" -frames:v 1 "$tmp/fa.png"
  img2webp -loop 0 -d 100 -lossy -q 30 "$tmp/f0.png" "$tmp/f1.png" "$tmp/f2.png" -o "$out/lossy.webp" >/dev/null 2>&1
  img2webp -loop 2 -d 50 -lossless "$tmp/f0.png" "$tmp/f1.png" -o "$out/lossless.webp" >/dev/null 2>&1
  img2webp -mixed -d 80 "$tmp/fa.png" "$tmp/f1.png" "$tmp/fa.png" -o "$out/alpha-mixed.webp" >/dev/null 2>&1
  img2webp -min_size -d 40 "$tmp/f0.png" "$tmp/f0.png" "$tmp/f2.png" -o "$out/minsize.webp" >/dev/null 2>&1
  ff -f lavfi -i "testsrc2=size=32x32:rate=10:duration=0.4" -c:v libwebp_anim -loop 0 -q:v 30 "$out/ffmpeg.webp"
  cp Tests/Fixtures/images/webp-*.webp "$out/"
  ;;
audio)
  # Sweep opens only video containers (sound-only ones too): MP4/M4A, MOV, Matroska, WebM,
  # AVI, MPEG-TS and FLV; bare MP3, ADTS, Ogg, FLAC and WAV are refused before any decoder.
  ff "${tone[@]}" -c:a aac "$out/aac.m4a"
  ff "${tone[@]}" -c:a libmp3lame -b:a 32k "$out/mp3.mp4"
  ff "${tone[@]}" -c:a alac "$out/alac.mov"
  ff "${tone[@]}" -c:a pcm_s16le "$out/pcm.mov"
  ff "${tone[@]}" -c:a libopus -b:a 16k "$out/opus.webm"
  ff "${tone[@]}" -c:a libvorbis "$out/vorbis.webm"
  ff "${tone[@]}" -c:a flac "$out/flac.mkv"
  ff "${tone[@]}" -c:a libmp3lame -b:a 32k "$out/mp3.mkv"
  ff "${tone[@]}" -c:a ac3 -b:a 64k "$out/ac3.mkv"
  ff "${tone[@]}" -c:a pcm_u8 -ac 2 -ar 8000 "$out/pcm-stereo.avi"
  ff "${tone[@]}" -c:a aac "$out/aac.ts"
  ff "${tone[@]}" -c:a mp2 "$out/mp2.ts"
  ff "${tone[@]}" -c:a aac "$out/aac.flv"
  ff "${tone[@]}" -c:a libopus -ac 2 -filter:a "pan=stereo|c0=c0|c1=c0" "$out/opus-stereo.mkv"
  ff -f lavfi -i "sine=frequency=440:sample_rate=8000:duration=0.2" -c:a pcm_s16le "$out/tel.mkv"
  ff -f lavfi -i "testsrc2=size=32x32:rate=10:duration=0.3" "${tone[@]}" -c:v libx264 -preset ultrafast -c:a aac \
    -shortest "$out/with-video.mp4"
  ff -itsoffset 0.1 "${tone[@]}" -c:a aac "$out/offset.m4a"
  # The bare ones, to be refused.
  ff "${tone[@]}" -c:a libmp3lame -b:a 32k "$out/bare.mp3"
  ff "${tone[@]}" -c:a aac "$out/bare.aac"
  ff "${tone[@]}" -c:a libopus "$out/bare.opus"
  ff "${tone[@]}" -c:a flac "$out/bare.flac"
  ff "${tone[@]}" -c:a pcm_s16le "$out/bare.wav"
  ;;
job-clip)
  j() { printf '%s' "$2" > "$out/$1"; }
  j clip1 '{"before": "a.mp4", "after": "b.mov", "output": "o.mp4", "start": "1.5", "end": "0:04", "audio": "before"}'
  j clip2 '{"before": "a.mkv", "output": "o.gif", "start": 2, "end": 3.25, "audio": "none", "first-frame": true}'
  j clip3 '{"before": "clip.webm", "after": "still.jpg", "output": "o.webm", "audio": "after", "hdr": "refuse", "fps": 30}'
  j clip4 '{"before": "--start=9", "after": "-o", "output": "o.mp4", "start": "--end=1", "audio": "--audio=none"}'
  j clip5 '{"before": "a.mp4", "output": "o.mp4", "start": "1:02:03.5", "end": "86400", "loop": "2", "duration": 4}'
  j clip6 '{"before": "anim.webp", "after": "anim.gif", "output": "o.mp4", "start": ["1", "2"], "audio": "auto", "codec": "h264"}'
  j clip7 '{"before": "a.mp4", "output": "o.mp4", "end": "-1", "start=0": "1", "audio ": "x", "first-frame": false}'
  j clip8 '{"before": "a.ts", "after": "b.avi", "output": "sub/o.mov", "start": "0.5", "hdr": "tonemap", "codec-opt": ["crf=20"]}'
  ;;
*) echo "no seeds for $t" >&2; exit 2 ;;
esac
# Keep seeds small: drop anything over 64 KB.
find "$out" -type f -size +64k -delete
