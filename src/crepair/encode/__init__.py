"""Encoding: unwinding, inlining, SSA and the program formula."""

from crepair.encode.formula import EncodingTimeout, Location, LocationKind, ProgramFormula, Unwinding
from crepair.encode.symex import Overrides, Site, encode

__all__ = ["EncodingTimeout", "Location", "LocationKind", "Overrides", "ProgramFormula", "Site", "Unwinding", "encode"]
