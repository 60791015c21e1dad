"""The allowed-tools policy: tool patterns, aliases, gating and the decision."""

from skillcore._moved import forwarding

# ``skillcore.policy`` was one module (kept importable for one release); its names now live in
# ``skillcore.policy.rules``.
__getattr__ = forwarding("skillcore.policy", "skillcore.policy.rules")
