#!/usr/bin/env bash
# Side-by-side benchmarks: sweep against the FFmpeg CLI (and gifsicle), same inputs, same run.
#   Benchmarks/run.sh [gif] [gifcurves] [mp4] [codecs] [memory] [frame] [video] [hdr] [decode] [scale]    (default: all but gifcurves, hdr, decode and scale)
# Needs: ffmpeg, gifsicle, python3 with numpy (pip install numpy; hdr also pillow and scikit-image). Results: Benchmarks/work/.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product sweep >/dev/null
swift build -c release --product sweep-framebench >/dev/null
command -v gifsicle >/dev/null || { echo "install gifsicle (apt-get install gifsicle)"; exit 1; }
python3 -c "import numpy" 2>/dev/null || { echo "install numpy (pip install numpy)"; exit 1; }
what=${*:-gif mp4 codecs memory frame video}
for w in $what; do
  case $w in
    frame) .build/release/sweep-framebench ;;
    video) python3 Benchmarks/video.py ;;
    hdr) python3 Benchmarks/hdr.py ;;
    decode) python3 Benchmarks/decode.py ;;
    scale) python3 Benchmarks/scale.py ;;
    gifcurves) python3 Benchmarks/gifcurves.py --json Benchmarks/work/gifcurves.json --plot docs/gif-curves.png ;;
    *) python3 Benchmarks/compare.py "$w" ;;
  esac
done
