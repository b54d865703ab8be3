"""Fault localization: must location sets (FOSFL, CAV'20)."""

from crepair.localization.must import DependencyGraph, MustResult, Origin, fosfl

__all__ = ["DependencyGraph", "MustResult", "Origin", "fosfl"]
