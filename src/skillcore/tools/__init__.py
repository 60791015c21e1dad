"""The tools the model sees: specs, the toolkit, replies, binary resources, preload and
redelivery."""

from skillcore._moved import forwarding

# ``skillcore.tools`` was one module (kept importable for one release); its names now live in
# ``skillcore.tools.toolkit``.
__getattr__ = forwarding("skillcore.tools", "skillcore.tools.toolkit")
