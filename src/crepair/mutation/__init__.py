"""Mutation unit: per-location alternative sets (AllRepair FM'16, Table 1)."""

from crepair.mutation.operators import Mutant, Mutation, MutationLevel, MutationUnit

__all__ = ["Mutant", "Mutation", "MutationLevel", "MutationUnit"]
