"""Where skills live: the source type, the reader protocol and one reader per kind of storage."""

from skillcore._moved import forwarding

# ``skillcore.sources`` was one module (kept importable for one release); its names now live in
# ``skillcore.sources.base``.
__getattr__ = forwarding("skillcore.sources", "skillcore.sources.base")
