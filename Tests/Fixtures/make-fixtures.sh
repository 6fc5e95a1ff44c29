#!/usr/bin/env bash
# Regenerates the decoder fixtures in images/ (committed; tests do not run this).
# Needs: imagemagick, libimage-exiftool-perl, webp, icc-profiles-free.
# Every image shows the same 48x32 pattern once decoded and oriented:
#   top-left red (220,20,20)   top-right green (20,200,20)
#   bottom-left blue (20,20,220)   bottom-right yellow (230,220,20)
set -euo pipefail
cd "$(dirname "$0")/images"
rm -f ./*
q() { convert -size 24x16 "xc:rgb($1)" "$2"; }
q 220,20,20 tl.png; q 20,200,20 tr.png; q 20,20,220 bl.png; q 230,220,20 br.png
convert \( tl.png tr.png +append \) \( bl.png br.png +append \) -append -depth 8 PNG24:pattern.png
rm tl.png tr.png bl.png br.png
P=pattern.png
convert $P -quality 95 -interlace none jpeg-baseline.jpg
convert $P -quality 95 -interlace Plane jpeg-progressive.jpg
convert $P -quality 95 -colorspace Gray jpeg-gray.jpg
convert $P -quality 95 -colorspace CMYK jpeg-cmyk.jpg
convert $P PNG24:png-rgb8.png
convert $P -depth 16 PNG48:png-rgb16.png
convert $P -colorspace Gray -depth 8 -define png:color-type=0 png-gray8.png
convert $P -colorspace Gray -depth 16 -define png:color-type=0 png-gray16.png
convert $P -colors 4 PNG8:png-palette.png
convert $P -interlace PNG PNG24:png-interlaced.png
# Alpha: the right half is fully transparent, the left half opaque.
convert $P \( -size 24x32 xc:white -size 24x32 xc:black +append \) -alpha off -compose CopyOpacity -composite PNG32:png-rgba.png
convert png-rgba.png -colors 5 PNG8:png-palette-trns.png
convert $P \( -size 24x32 xc:white -size 24x32 xc:black +append \) -colorspace Gray -alpha off -compose CopyOpacity -composite -define png:color-type=4 png-gray-alpha.png
cwebp -quiet -q 95 $P -o webp-lossy.webp
cwebp -quiet -lossless $P -o webp-lossless.webp
cwebp -quiet -lossless png-rgba.png -o webp-alpha.webp
convert $P -compress lzw tiff.tiff
convert $P BMP3:bmp.bmp
convert -delay 10 $P \( $P -negate \) -loop 0 gif-animated.gif
# Orientations: store the pattern pre-transformed so that applying the tag restores it.
convert $P -quality 95 orient-1.jpg
convert $P -flop -quality 95 orient-2.jpg
convert $P -rotate 180 -quality 95 orient-3.jpg
convert $P -flip -quality 95 orient-4.jpg
convert $P -transpose -quality 95 orient-5.jpg
convert $P -rotate -90 -quality 95 orient-6.jpg
convert $P -transverse -quality 95 orient-7.jpg
convert $P -rotate 90 -quality 95 orient-8.jpg
for k in 1 2 3 4 5 6 7 8; do exiftool -q -overwrite_original -n "-Orientation=$k" orient-$k.jpg; done
# Check the fixtures themselves: auto-orient must give back the pattern.
for k in 1 2 3 4 5 6 7 8; do
  convert orient-$k.jpg -auto-orient check.png
  d=$(compare -metric AE -fuzz 8% check.png $P null: 2>&1 || true)
  rm -f check.png
  [ "$d" = "0" ] || { echo "orient-$k.jpg does not restore the pattern ($d)"; exit 1; }
done
# Colour management: pixels (150,100,80) meant as Adobe RGB (1998), with the profile embedded.
ADOBE=/usr/share/color/icc/compatibleWithAdobeRGB1998.icc
convert -size 48x32 'xc:rgb(150,100,80)' PNG24:icc-adobergb.png
convert -size 48x32 'xc:rgb(150,100,80)' -quality 100 -sampling-factor 1x1 icc-adobergb.jpg
for f in icc-adobergb.png icc-adobergb.jpg; do exiftool -q -overwrite_original "-icc_profile<=$ADOBE" $f; done
rm -f pattern.png
ls -la
