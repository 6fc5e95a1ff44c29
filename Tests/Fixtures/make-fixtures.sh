#!/usr/bin/env bash
# Regenerates the decoder fixtures in images/ (committed; tests do not run this).
# Needs: imagemagick, libimage-exiftool-perl, webp, icc-profiles-free, libheif-examples, libavif-bin, ffmpeg, python3.
# Every image shows the same 48x32 pattern once decoded and oriented:
#   top-left red (220,20,20)   top-right green (20,200,20)
#   bottom-left blue (20,20,220)   bottom-right yellow (230,220,20)
set -euo pipefail
cd "$(dirname "$0")/images"
# HEIC and AVIF (needs: libheif-examples, libavif-bin, ffmpeg with libx265 and zscale, python3,
# liblcms2-2; no ImageMagick, so that `make-fixtures.sh heif` remakes only these). heif-enc 1.15 writes neither irot/imir nor the
# nclx values it is given, so those are patched in place (same sizes: no offset moves).
heif_fixtures() {
  python3 - <<'EOF'
import ctypes, os, struct, subprocess, tempfile, zlib
tmp = tempfile.mkdtemp()
def png(name, pixel, alpha=False, icc=None, w=48, h=32, deep=False):
    def chunk(t, b): return struct.pack(">I", len(b)) + t + b + struct.pack(">I", zlib.crc32(t + b) & 0xffffffff)
    def sample(p): return b"".join(struct.pack(">H", v * 257) for v in p) if deep else bytes(p)
    rows = b"".join(b"\0" + b"".join(sample(pixel(x, y)[:4 if alpha else 3]) for x in range(w)) for y in range(h))
    out = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 16 if deep else 8, 6 if alpha else 2, 0, 0, 0))
    if icc: out += chunk(b"iCCP", b"Display P3\0\0" + zlib.compress(icc))
    path = os.path.join(tmp, name)
    open(path, "wb").write(out + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
    return path
def enc(src, dst, *extra): subprocess.run(["heif-enc", "-q", "90", *extra, src, "-o", dst], check=True, stdout=subprocess.DEVNULL)
def patch(src, dst, fn):
    b = bytearray(open(src, "rb").read()); fn(b); open(dst, "wb").write(b)
def replace_pixi(kind, value):  # pixi (16 bytes) becomes a 16-byte irot/imir; libheif reads its first byte
    def fn(b):
        i = b.index(b"pixi") - 4
        assert int.from_bytes(b[i:i + 4], "big") == 16
        b[i + 4:i + 16] = kind + bytes([value]) + bytes(7)
    return fn
def nclx(primaries, transfer):  # the colr nclx box heif-enc writes for AVIF (BT.601 matrix kept)
    def fn(b):
        i = b.index(b"colrnclx") + 8
        b[i:i + 4] = primaries.to_bytes(2, "big") + transfer.to_bytes(2, "big")
    return fn
# The pattern (as above); the right half transparent in the alpha one.
def quad(x, y):
    return [(220, 20, 20), (20, 200, 20), (20, 20, 220), (230, 220, 20)][(x >= 24) + 2 * (y >= 16)] + (255 if x < 24 else 0,)
enc(png("pattern.png", quad), "heic.heic")
enc(png("pattern.png", quad), "avif.avif")
enc(png("alpha.png", quad, alpha=True), "avif-alpha.avif")
enc(png("deep.png", quad, deep=True), "heic-10bit.heic", "-b", "10")  # 10-bit SDR, as newer iPhones can shoot
# Premultiplied alpha: the right half is (220,20,20) at alpha 128, stored as (110,10,10).
enc(png("prem.png", lambda x, y: (220, 20, 20, 255) if x < 24 else (110, 10, 10, 128), alpha=True),
    "avif-premultiplied.avif", "--premultiplied-alpha")
for k in (1, 2, 3): patch("heic.heic", f"heic-irot{k}.heic", replace_pixi(b"irot", k))
patch("heic.heic", "heic-imir0.heic", replace_pixi(b"imir", 0))
# Colour: flat (230,60,40) meant as Display P3, by an ICC profile lcms2 makes (EG 432-1
# primaries, D65, the sRGB curve) or by nclx primaries 12; and as BT.2020 PQ/HLG (HDR, refused).
lcms = ctypes.CDLL("liblcms2.so.2")
class xyY(ctypes.Structure): _fields_ = [("x", ctypes.c_double), ("y", ctypes.c_double), ("Y", ctypes.c_double)]
lcms.cmsBuildParametricToneCurve.restype = ctypes.c_void_p
lcms.cmsCreateRGBProfile.restype = ctypes.c_void_p
curve = lcms.cmsBuildParametricToneCurve(None, 4, (ctypes.c_double * 5)(2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045))
prims = (xyY * 3)(xyY(0.680, 0.320, 1), xyY(0.265, 0.690, 1), xyY(0.150, 0.060, 1))
prof = ctypes.c_void_p(lcms.cmsCreateRGBProfile(ctypes.byref(xyY(0.3127, 0.3290, 1)), prims,
                                                (ctypes.c_void_p * 3)(curve, curve, curve)))
size = ctypes.c_uint32(0)
lcms.cmsSaveProfileToMem(prof, None, ctypes.byref(size))
icc = ctypes.create_string_buffer(size.value)
lcms.cmsSaveProfileToMem(prof, icc, ctypes.byref(size))
profile = bytearray(icc.raw)
profile[24:36] = bytes(12)  # the creation date, so that a remake gives the same file
enc(png("p3.png", lambda x, y: (230, 60, 40), icc=bytes(profile)), "heic-p3-icc.heic")
flat = os.path.join(tmp, "flat.avif")
enc(png("flat.png", lambda x, y: (230, 60, 40)), flat)
patch(flat, "avif-p3-nclx.avif", nclx(12, 13))
patch(flat, "avif-pq.avif", nclx(9, 16))
patch(flat, "avif-hlg.avif", nclx(9, 18))
# Range: grey bands black | 128 | white, monochrome (4:0:0, which heif-enc cannot write) in
# limited and full range, 10-bit, and without a colr box (the AV1 sequence header then
# decides); and the colour pattern in limited range.
def avifenc(src, dst, *extra):
    subprocess.run(["avifenc", "-s", "6", "--min", "10", "--max", "10", *extra, src, dst], check=True, stdout=subprocess.DEVNULL)
def bands(x, y): return (0, 0, 0) if x < 16 else (128, 128, 128) if x < 32 else (255, 255, 255)
avifenc(png("bands.png", bands), "avif-mono-limited.avif", "--yuv", "400", "--range", "limited")
avifenc(png("bands.png", bands), "avif-mono-full.avif", "--yuv", "400", "--range", "full")
avifenc(png("bands16.png", bands, deep=True), "avif-mono10-limited.avif", "--yuv", "400", "--range", "limited", "-d", "10")
def drop_colr(b):  # the colr property becomes a free box of the same size (ipma indices unchanged)
    i = b.index(b"colrnclx")
    b[i:i + 4] = b"free"
patch("avif-mono-limited.avif", "avif-mono-limited-nocolr.avif", drop_colr)
# The same bands in a 2x1 grid of 64x64 monochrome tiles (avifenc's smallest), 128x64 in all.
avifenc(png("bands-wide.png", lambda x, y: bands(x * 3 // 8, y), w=128, h=64), "avif-mono-grid-limited.avif",
        "--yuv", "400", "--range", "limited", "-g", "2x1")
avifenc(png("pattern.png", quad), "avif-limited.avif", "--yuv", "420", "--range", "limited")
# Derived primaries, written box by box around heic.heic's own 64x64 HEVC tile.
def box(kind, body): return struct.pack(">I", 8 + len(body)) + kind + body
def full(kind, version, flags, body): return box(kind, bytes([version]) + flags.to_bytes(3, "big") + body)
def children(b, start, end):
    while start + 8 <= end:
        size = int.from_bytes(b[start:start + 4], "big")
        yield b[start + 4:start + 8], start + 8, start + size
        start += size
src = open("heic.heic", "rb").read()
meta = next((s, e) for k, s, e in children(src, 0, len(src)) if k == b"meta")
parts = {k: (s, e) for k, s, e in children(src, meta[0] + 4, meta[1])}
ipco = next((s, e) for k, s, e in children(src, *parts[b"iprp"]) if k == b"ipco")
hvcC = next(src[s - 8:e] for k, s, e in children(src, *ipco) if k == b"hvcC")
s, e = parts[b"iloc"]  # version 1, 4-byte base offsets, offsets and lengths; item 1 (the tile) first
assert src[s] == 1 and src[s + 4:s + 6] == b"\x44\x40" and src[s + 8:s + 10] == b"\x00\x01"
base, count, off, length = struct.unpack(">IHII", src[s + 14:s + 28])
assert count == 1
tile = src[base + off:base + off + length]
def ispe(w, h): return full(b"ispe", 0, 0, struct.pack(">II", w, h))
def heif(name, items, refs, props, idat=b"", primary=1):
    """items: (id, type, hidden, [property indices], data, in_idat); refs: (type, from, [to]).
    An item whose data is None gets no iloc entry (an iden may go without one)."""
    def build(mdat_at):
        iloc, at_mdat, at_idat = b"", mdat_at, 0
        located = [i for i in items if i[4] is not None]
        for iid, _, _, _, data, in_idat in located:
            iloc += struct.pack(">HHH", iid, 1 if in_idat else 0, 0) + struct.pack(">HII", 1, at_idat if in_idat else at_mdat, len(data))
            if in_idat: at_idat += len(data)
            else: at_mdat += len(data)
        infes = b"".join(full(b"infe", 2, 1 if hidden else 0, struct.pack(">HH", iid, 0) + kind + b"\0") for iid, kind, hidden, _, _, _ in items)
        ipma = struct.pack(">I", len(items)) + b"".join(struct.pack(">HB", iid, len(p)) + bytes(p) for iid, _, _, p, _, _ in items)
        iref = b"".join(box(k, struct.pack(">HH", f, len(to)) + b"".join(struct.pack(">H", t) for t in to)) for k, f, to in refs)
        body = (full(b"hdlr", 0, 0, bytes(4) + b"pict" + bytes(13)) + full(b"pitm", 0, 0, struct.pack(">H", primary))
                + full(b"iloc", 1, 0, b"\x44\x00" + struct.pack(">H", len(located)) + iloc)
                + full(b"iinf", 0, 0, struct.pack(">H", len(items)) + infes)
                + (full(b"iref", 0, 0, iref) if refs else b"")
                + box(b"iprp", box(b"ipco", b"".join(props)) + full(b"ipma", 0, 0, ipma))
                + (box(b"idat", idat) if idat else b""))
        return box(b"ftyp", b"heic" + bytes(4) + b"mif1heicmiaf") + full(b"meta", 0, 0, body)
    head = build(0)
    head = build(len(head) + 8)
    open(name, "wb").write(head + box(b"mdat", b"".join(d for _, _, _, _, d, i in items if d is not None and not i)))
# An overlay (iovl) as the primary item: libheif 1.15 overruns the heap composing some.
iovl = bytes([0, 0]) + struct.pack(">HHHH", 0, 0, 0, 0xFFFF) + struct.pack(">HH", 48, 32) + struct.pack(">hh", 0, 0)
heif("heic-overlay.heic", [(1, b"hvc1", True, [0x81, 2], tile, False), (2, b"iovl", False, [3], iovl, True)],
     [(b"dimg", 2, [1])], [hvcC, ispe(64, 64), ispe(48, 32)], idat=iovl, primary=2)
# A predictively coded primary ('pred' to another item, as conformance file C044): libheif
# 1.15 decodes it alone, flat grey.
heif("heic-predicted.heic", [(1, b"hvc1", False, [0x81, 2], tile, False), (2, b"hvc1", True, [0x81, 2], tile, False)],
     [(b"pred", 1, [2])], [hvcC, ispe(64, 64)])
# Valid files libheif 1.15 cannot open (it wants data for every item): an iden without an iloc
# entry, as the primary (conformance files C008, C014) or unused beside it (C023).
heif("heic-iden-bare.heic", [(1, b"hvc1", True, [0x81, 2], tile, False), (2, b"iden", False, [2], None, False)],
     [(b"dimg", 2, [1])], [hvcC, ispe(64, 64)], primary=2)
heif("heic-iden-bare-unused.heic", [(1, b"hvc1", False, [0x81, 2], tile, False), (2, b"iden", True, [2], None, False)],
     [(b"dimg", 2, [1])], [hvcC, ispe(64, 64)])
# A grid that declares 30000x30000 output behind a 48x32 ispe (the grid data sits in idat).
def grid_bomb(b):
    i = b.index(b"idat") + 4
    assert b[i:i + 4] == bytes([0, 0, 0, 0]) and b[i + 4:i + 8] == struct.pack(">HH", 48, 32)
    b[i + 4:i + 8] = struct.pack(">HH", 30000, 30000)
patch("heic.heic", "heic-grid-bomb.heic", grid_bomb)
# HDR: FFmpeg's test pattern as HLG R'G'B' (BT.2020), 10-bit 4:4:4 full range (avifenc, cicp 9/18/9).
# Each HDR photo has references made by decoders other than sweep, each run through FFmpeg's own
# zscale/tonemap chain (sweep's for photos): the file's own reference decoder at full depth
# (.ref.png: avifdec's 16-bit R'G'B' for AVIF, FFmpeg decoding the HEVC bitstream for HEIC),
# libheif's (heif-convert's 16-bit R'G'B', .libheif.png), and for the HLG AVIF the R'G'B' it was
# coded from (.source.png).
chain = ("zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=hable:desat=0,"
         "zscale=t=bt709,format=gbrp")  # ToneMapper.stillChain: a photo's chain ends in R'G'B'.
def tonemapped(src, dst, transfer, matrix="gbr", rng="pc"):
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", src, "-vf",
                    f"setparams=color_primaries=bt2020:color_trc={transfer}:colorspace={matrix}:range={rng},{chain},format=rgb24",
                    "-frames:v", "1", dst], check=True)
def references(name, transfer, libheif=False):  # an AVIF's .ref.png, and if asked the .libheif.png
    stem = name.rsplit(".", 1)[0]
    if name.endswith(".avif"):
        subprocess.run(["avifdec", "-d", "16", name, os.path.join(tmp, "avifdec.png")], check=True, stdout=subprocess.DEVNULL)
        tonemapped(os.path.join(tmp, "avifdec.png"), stem + ".ref.png", transfer)
    if libheif:
        subprocess.run(["heif-convert", "--quiet", name, os.path.join(tmp, "libheif.png")], check=True)
        tonemapped(os.path.join(tmp, "libheif.png"), stem + ".libheif.png", transfer)
def pattern(transfer, output, yuv=""):
    """testsrc2 as BT.2020 R'G'B' in a 16-bit PNG at `output`; or, given zscale's Y'CbCr arguments
    in `yuv`, as 10-bit 4:2:0 Y'CbCr written by the ffmpeg output arguments `output`."""
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=96x64", "-frames:v", "1", "-vf",
                    f"format=gbrpf32le,zscale=tin=iec61966-2-1:pin=bt709:t={transfer}:p=bt2020:npl=100{yuv},"
                    + ("format=yuv420p10le" if yuv else "format=rgb48be"), *(output if yuv else [output])], check=True)
hlg = os.path.join(tmp, "hlg.png")
pattern("arib-std-b67", hlg)
subprocess.run(["avifenc", "-d", "10", "-y", "444", "--cicp", "9/18/9", "-r", "full", "--min", "0", "--max", "4", hlg,
                "avif-hlg-pattern.avif"], check=True, stdout=subprocess.DEVNULL)
tonemapped(hlg, "avif-hlg-pattern.source.png", "arib-std-b67")
references("avif-hlg-pattern.avif", "arib-std-b67", libheif=True)
# PQ AVIF as most encoders write it: 10-bit 4:2:0, limited range (avifenc converts and subsamples).
pq = os.path.join(tmp, "pq.png")
pattern("smpte2084", pq)
subprocess.run(["avifenc", "-d", "10", "-y", "420", "--cicp", "9/16/9", "-r", "limited", "--min", "0", "--max", "4", pq,
                "avif-pq-pattern.avif"], check=True, stdout=subprocess.DEVNULL)
references("avif-pq-pattern.avif", "smpte2084")
# PQ HEIC as a camera writes it: Y'CbCr by BT.2020's matrix, limited range, 10-bit 4:2:0, coded by
# x265 through FFmpeg (heif-enc 1.15 codes BT.601 full range whatever it is told, and writes no colr
# box for HEIC), then put in a HEIF by hand with its colr nclx box.
import re
pq_hevc = os.path.join(tmp, "pq.hevc")
pattern("smpte2084", ["-c:v", "libx265", "-x265-params", "log-level=error:crf=12", "-color_primaries", "bt2020",
                      "-color_trc", "smpte2084", "-colorspace", "bt2020nc", "-color_range", "tv", "-f", "hevc", pq_hevc],
        yuv=":m=bt2020nc:r=tv")
nals = [n.rstrip(b"\0") for n in re.split(b"\0\0\1", open(pq_hevc, "rb").read()) if n.strip(b"\0")]
def nal_type(n): return (n[0] >> 1) & 63
sps = re.sub(b"\0\0\3", b"\0\0", next(n for n in nals if nal_type(n) == 33))  # emulation prevention removed
# hvcC: the SPS's general profile, tier and level (the 12 bytes after its 3-byte head), 4:2:0, 10
# bits, 4-byte NAL lengths, then the VPS, SPS and PPS; the slices are the item's data.
sets = [n for n in nals if nal_type(n) in (32, 33, 34)]
pq_hvcC = box(b"hvcC", bytes([1]) + sps[3:15] + b"\xf0\x00\xfc\xfd\xfa\xfa\x00\x00\x0f" + bytes([len(sets)])
              + b"".join(bytes([0x80 | nal_type(n)]) + struct.pack(">HH", 1, len(n)) + n for n in sets))
pq_slices = b"".join(struct.pack(">I", len(n)) + n for n in nals if nal_type(n) < 32)
colr = box(b"colr", b"nclx" + struct.pack(">HHHB", 9, 16, 9, 0))  # BT.2020, PQ, BT.2020 non-constant, limited
heif("heic-pq-pattern.heic", [(1, b"hvc1", False, [0x81, 2, 3], pq_slices, False)], [], [pq_hvcC, ispe(96, 64), colr])
tonemapped(pq_hevc, "heic-pq-pattern.ref.png", "smpte2084", "bt2020nc", "tv")
# The same turned a quarter anticlockwise (irot 1), and FFmpeg's reference turned likewise.
heif("heic-pq-pattern-irot1.heic", [(1, b"hvc1", False, [0x81, 2, 3, 0x84], pq_slices, False)], [],
     [pq_hvcC, ispe(96, 64), colr, box(b"irot", bytes([1]))])
subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", "heic-pq-pattern.ref.png", "-vf", "transpose=cclock",
                "heic-pq-pattern-irot1.ref.png"], check=True)
EOF
}
if [ "${1:-}" = heif ]; then heif_fixtures; ls -la ./*.heic ./*.avif; exit 0; fi
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
heif_fixtures
ls -la
