"""What the held-out pair makers share: where their pictures come from, a colour grade, and how
a pair is written (OUT_DIR/<name>/before.png and after.png)."""
import os
from PIL import Image, ImageEnhance
import skimage.data

FIX = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "fixtures"))
DATA = os.path.dirname(skimage.data.__file__)


def load(name):
    """One of scikit-image's sample pictures, as RGB."""
    return Image.open(os.path.join(DATA, name)).convert("RGB")


def grade(im, colour, contrast, brightness=1.0):
    im = ImageEnhance.Color(im).enhance(colour)
    im = ImageEnhance.Contrast(im).enhance(contrast)
    return ImageEnhance.Brightness(im).enhance(brightness)


def save(out, name, before, after):
    os.makedirs(os.path.join(out, name), exist_ok=True)
    before.save(os.path.join(out, name, "before.png"))
    after.save(os.path.join(out, name, "after.png"))
