"""The allowed-tools policy: tool patterns, aliases, gating and the decision."""
