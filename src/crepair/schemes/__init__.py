"""Repair schemes; each yields verified :class:`Repair` records."""

from crepair.schemes.mutation import AllRepair, Change, RepairOutcome, Repair, SearchStats

__all__ = ["AllRepair", "Change", "Repair", "RepairOutcome", "SearchStats"]
