"""The version of crepair (one place)."""

__version__ = "0.1.0"
