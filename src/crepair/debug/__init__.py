"""``crepair debug``: the interactive debug-localize-repair shell (Wolverine2 §1-3, §6)."""
