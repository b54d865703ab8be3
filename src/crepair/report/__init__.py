"""Renderers: human text and JSON."""
