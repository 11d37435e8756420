"""Draws the spectator app's icons (a mahjong tile with one dot) as PNGs, with no image library:
`python app/static/icons/make_icons.py` writes icon-192.png and icon-512.png beside this file,
and favicon.ico (16, 32 and 48 pixels) for browsers that ask for /favicon.ico.

The tile keeps inside the middle 80% of the square, so a "maskable" crop keeps all of it.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

ACCENT = (179, 0, 27)  # --accent in base.css
TILE = (250, 248, 240)
EDGE = (214, 208, 190)
DOT = (11, 110, 46)  # --above
SAMPLES = 4  # per axis, for smooth edges


def _rounded_box(x: float, y: float, box: tuple[float, float, float, float], r: float) -> bool:
    left, top, right, bottom = box
    if not (left <= x <= right and top <= y <= bottom):
        return False
    cx = min(max(x, left + r), right - r)
    cy = min(max(y, top + r), bottom - r)
    return (x - cx) ** 2 + (y - cy) ** 2 <= r * r


def _colour(x: float, y: float) -> tuple[int, int, int]:
    """The colour at (x, y) in a unit square."""
    if _rounded_box(x, y, (0.27, 0.17, 0.73, 0.83), 0.06):
        if not _rounded_box(x, y, (0.29, 0.19, 0.71, 0.79), 0.05):
            return EDGE  # the tile's thick lower edge
        d2 = (x - 0.5) ** 2 + (y - 0.49) ** 2
        if d2 <= 0.14**2:
            return ACCENT if d2 <= 0.06**2 else (DOT if d2 >= 0.105**2 else TILE)
        return TILE
    return ACCENT


def draw(size: int) -> bytes:
    rows = []
    for py in range(size):
        row = bytearray([0])  # filter: none
        for px in range(size):
            total = [0, 0, 0]
            for sy in range(SAMPLES):
                for sx in range(SAMPLES):
                    colour = _colour(
                        (px + (sx + 0.5) / SAMPLES) / size, (py + (sy + 0.5) / SAMPLES) / size
                    )
                    for i in range(3):
                        total[i] += colour[i]
            row.extend(round(c / SAMPLES**2) for c in total)
        rows.append(bytes(row))
    return png(size, size, b"".join(rows))


def png(width: int, height: int, raw: bytes) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


def ico(sizes: tuple[int, ...]) -> bytes:
    """An ICO file of PNG images (as every browser since 2007 reads them)."""
    images = [draw(size) for size in sizes]
    header = struct.pack("<HHH", 0, 1, len(images))  # reserved, type 1 (icon), count
    offset = len(header) + 16 * len(images)
    entries = b""
    for size, image in zip(sizes, images, strict=True):
        # width, height, colours, reserved, planes, bits per pixel, bytes, offset
        entries += struct.pack("<BBBBHHII", size % 256, size % 256, 0, 0, 1, 24, len(image), offset)
        offset += len(image)
    return header + entries + b"".join(images)


if __name__ == "__main__":
    here = Path(__file__).resolve().parent
    for size in (192, 512):
        (here / f"icon-{size}.png").write_bytes(draw(size))
    (here / "favicon.ico").write_bytes(ico((16, 32, 48)))
