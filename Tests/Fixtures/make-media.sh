#!/usr/bin/env bash
# Remakes the real-media fixtures in media/ (committed; tests do not run this). See media/README.md.
#   Tests/Fixtures/make-media.sh ANDROIDX_MEDIA_CHECKOUT
# The public files are copied unchanged from androidx/media (Apache-2.0) at commit
# 2bc207851df311340767e913931ca7b28cab1794; the generated ones (g-*) are made with FFmpeg 5.1,
# shaped like the real files named in the README, where no small public sample was found.
set -euo pipefail
src=${1:?give the path of an androidx/media checkout}/libraries/test_data/src/test/assets/media
cd "$(dirname "$0")/media"
copy() { cp "$src/$1" "$2"; }
copy mp4/dolbyVision-hdr.MOV dv84-hlg-iphone.mov
copy mp4/water_180_mvhevc_5frames.mov mvhevc-spatial.mov
copy mp4/edit_list_positive_shift.mp4 editlist-shift.mp4
copy mp4/iibbibb_editlist_videoonly.mp4 editlist-bframes.mp4
copy mp4/sample_av1.mp4 av1.mp4
copy mkv/sample_av1.mkv av1-hlg.mkv
copy mp4/sample_with_colr_mdcv_and_clli.mp4 av1-pq-hdr10.mp4
copy mkv/sample.mkv h264-ac3.mkv
copy mkv/sample_with_vorbis_audio.mkv h264-vorbis.mkv
copy mp4/sample_twos_pcm.mp4 h264-pcm-twos.mp4
copy ts/sample_h264_mpeg_audio.ts h264-mp2.ts
copy ts/sample_h265.ts hevc.ts
copy flv/sample.flv h264-aac.flv
copy avi/sample-with-large-length.avi h264-mp3-long-header.avi
copy 3gp/bbb_176x144_128kbps_15fps_h263.3gp h263.3gp
copy mp4/sample_rotate_and_reflect.mp4 transposed.mp4
copy mp4/sample_fragmented.mp4 fragmented-bogus-length.mp4
copy mp4/sample_sef_slow_motion.mp4 slow-motion-vfr.mp4
copy mp4/sample_ac3.mp4 ac3-5.1-audio-only.mp4
copy vp9/invalid-bitstream.webm vp9-invalid.webm
copy drm/sample_av1c_fragmented_clearkey.mp4 clearkey-drm.mp4
q() { ffmpeg -v error -y "$@"; }
# 5.1 Vorbis with VP9, as a WebM from a browser or a desktop recorder carries it.
q -f lavfi -i "testsrc2=s=320x180:r=25:d=1" -f lavfi -i "sine=f=440:d=1:r=48000" \
  -filter_complex "[1:a]pan=5.1|FL=c0|FR=0.5*c0|FC=0.3*c0|LFE=0.1*c0|BL=0.2*c0|BR=0.6*c0[a]" -map 0:v -map "[a]" \
  -c:v libvpx-vp9 -b:v 200k -deadline realtime -cpu-used 8 -c:a libvorbis -q:a 0 g-vp9-vorbis51.webm
# A motion photo's video part (Pixel): an HEVC clip at about 30 fps and, in a second track,
# one larger HEVC frame (the still), each with its own track.
q -f lavfi -i "testsrc2=s=512x384:r=30:d=1" -f lavfi -i "testsrc2=s=1024x768:r=2:d=0.5" \
  -map 0:v -map 1:v -frames:v:1 1 -c:v libx265 -preset ultrafast -crf 34 -x265-params log-level=error \
  -tag:v hvc1 g-motion-photo-two-tracks.mp4
# ALAC and E-AC-3 beside a video, as an iPhone and a streaming download hold them: the public
# samples' audio packets, unchanged, with a small H.264 picture.
q -f lavfi -i "testsrc2=s=320x180:r=30:d=1" -i "$src/mp4/sample_alac.mp4" -map 0:v -map 1:a -c:v libx264 -crf 30 \
  -c:a copy -shortest g-h264-alac.mov
q -f lavfi -i "testsrc2=s=320x180:r=25:d=1.7" -i "$src/mp4/sample_eac3.mp4" -map 0:v -map 1:a -c:v libx264 -crf 30 \
  -c:a copy g-h264-eac3.mp4
