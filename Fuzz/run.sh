#!/usr/bin/env bash
# Builds sweep's libFuzzer harness (with AddressSanitizer) and runs each target for a
# bounded time on a seed corpus.   Fuzz/run.sh [SECONDS_PER_TARGET] [decode|preset|job|codecopt …]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}; shift || true
targets=${*:-decode png-chunks jpeg-markers preset job codecopt}
B=.build/fuzz
swift build --build-path $B --target SweepFuzz -Xswiftc -sanitize=fuzzer,address >/dev/null
objs=$(for m in SweepFuzz SweepCLI SweepPipeline SweepWeb SweepMedia SweepImaging SweepGIF SweepTimeline SweepSupport; do
  ls $B/debug/$m.build/*.o; done)
swiftc -sanitize=fuzzer,address $objs -o $B/sweep-fuzz \
  $(pkg-config --libs libavformat libavcodec libavutil libswscale pangocairo lcms2 zlib) -lgif
for t in $targets; do
  seeds=$B/seeds-$t; rm -rf $seeds; mkdir -p $seeds $B/corpus/$t
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
  esac
  echo "== $t: ${secs}s"
  SWEEP_FUZZ=$t $B/sweep-fuzz $B/corpus/$t $seeds -max_total_time=$secs -max_len=65536 -rss_limit_mb=4096 \
    -print_final_stats=1 2>&1 | grep -E "^#|stat::|ERROR|SUMMARY|crash-|Done" | tail -6
done
