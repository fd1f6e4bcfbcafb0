"""ModernBERT: rotary positions, alternating global and local (sliding window) attention layers. The
model builds its global and its sliding-window masks from the 2-D mask (a ready 4-D mask would skip the
window), through the padded sdpa or eager path (never the unpadded flash path)."""
from . import Family

FAMILIES = [Family("modernbert", positions_after_padding=False, mask="2d",
                   note="rotary positions; local sliding-window layers, masked from the 2-D mask")]
