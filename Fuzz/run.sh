#!/usr/bin/env bash
# Builds sweep's libFuzzer harness (with AddressSanitizer) and runs each target for a
# bounded time on a seed corpus.
#   Fuzz/run.sh [SECONDS_PER_TARGET] [decode|png-chunks|jpeg-markers|preset|job|codecopt|
#                                     probe|heif|webp-anim|audio|job-clip …]
# The media targets (probe, heif, webp-anim, audio) and job-clip get their seeds from
# Fuzz/seeds.sh (FFmpeg's CLI, img2webp, heif-enc, avifenc). Each target runs a copy of
# the binary ($FUZZ_BIN_DIR, default .build/fuzz/bin), so a rebuild does not disturb a run;
# its whole log, and any crash input, go to $FUZZ_LOG_DIR (default .build/fuzz/logs). Inputs that crashed or
# hung heif's decode worker (contained, a typed error) are kept in $SWEEP_FUZZ_CONTAINED
# (default .build/fuzz/contained-heif).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}; shift || true
targets=${*:-decode png-chunks jpeg-markers preset job codecopt probe heif webp-anim audio job-clip}
B=.build/fuzz
bins=${FUZZ_BIN_DIR:-$B/bin} logs=${FUZZ_LOG_DIR:-$B/logs}
export SWEEP_FUZZ_CONTAINED=${SWEEP_FUZZ_CONTAINED:-$PWD/$B/contained-heif}
mkdir -p "$bins" "$logs"
swift build --build-path $B --target SweepFuzz -Xswiftc -sanitize=fuzzer,address >/dev/null
objs=$(for m in SweepFuzz SweepRequest SweepPipeline SweepWorker SweepWeb SweepMedia SweepImaging SweepGIF SweepTimeline SweepSupport; do
  ls $B/debug/$m.build/*.o; done)
swiftc -sanitize=fuzzer,address $objs -o $B/sweep-fuzz \
  $(pkg-config --libs libavformat libavcodec libavutil libswscale libswresample pangocairo lcms2 zlib libheif libwebpdemux libwebp \
    libseccomp) -lgif 2>&1 | { grep -v "Cannot export local symbol" || true; }
failed=""
for t in $targets; do
  seeds=$B/seeds-$t; rm -rf $seeds; mkdir -p $seeds $B/corpus/$t
  maxlen=65536 timeout=1200
  case $t in
    decode) cp Tests/Fixtures/images/* $seeds/ ;;
    png-chunks) for f in Tests/Fixtures/images/*.png; do tail -c +9 "$f" > "$seeds/$(basename "$f")"; done ;;
    jpeg-markers) for f in Tests/Fixtures/images/*.jpg; do tail -c +3 "$f" > "$seeds/$(basename "$f")"; done ;;
    preset) cp presets/*/*.json $seeds/ ;;
    job) printf '{"before": "a.jpg", "output": "o.gif", "size": "10x10", "no-handle": true, "codec-opt": ["a=1"]}' > $seeds/job1
         printf '{"before": "--output=x.gif", "after": "-o", "output": "o.gif", "output=hijack.gif": "1", "size": "-s"}' > $seeds/job2 ;;
    codecopt) printf 'crf=20\npreset=slow\nx264-params=keyint=60:bframes=3' > $seeds/opt1
         printf 'x264-params=dump-yuv=IN.jpg' > $seeds/opt2
         printf 'x265-params=log-level=error:csv=a.csv\ncrf=0' > $seeds/opt3
         printf "x264-params=keyint=1\\\\:stats='a'\nquality=80\nrow-mt=1" > $seeds/opt4 ;;
    job-clip) Fuzz/seeds.sh $t $seeds ;;
    probe|heif|webp-anim|audio) Fuzz/seeds.sh $t $seeds; maxlen=262144 timeout=60 ;;
    *) echo "unknown target $t" >&2; exit 2 ;;
  esac
  cp $B/sweep-fuzz "$bins/sweep-fuzz-$t"
  echo "== $t: ${secs}s (log: $logs/$t.log)"
  SWIFT_BACKTRACE=enable=no SWEEP_FUZZ=$t "$bins/sweep-fuzz-$t" $B/corpus/$t $seeds -max_total_time=$secs -max_len=$maxlen -timeout=$timeout \
    -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$logs/$t-" > "$logs/$t.log" 2>&1 || failed="$failed $t"
  grep -E "^#[0-9]+.*(DONE|pulse)|stat::|ERROR|SUMMARY|crash-|Done|CONTAINED|KNOWN" "$logs/$t.log" | tail -8
  if grep -q CONTAINED "$logs/$t.log"; then echo "contained by the decode worker: $(grep -c CONTAINED "$logs/$t.log") (kept in $SWEEP_FUZZ_CONTAINED)"; fi
done
if [ -n "$failed" ]; then echo "crashed:$failed (inputs: $logs/TARGET-crash-*)"; exit 1; fi
