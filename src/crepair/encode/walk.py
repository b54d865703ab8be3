"""The state of the symbolic walk: variables, path states, frames, and the
mutants a location may take.

The walk of :mod:`crepair.encode.symex` is a symbolic execution in the sense
of Clarke, Kroening, Lerda (TACAS'04, Sect. 3) as used by AllRepair (FM'16,
Sect. 3.1): a :class:`State` is one path's guard and its SSA environment
(variable key -> current SSA term); states fork at branches and are merged
(Φ) where paths join.  A :class:`Ctx` evaluates one expression, either
recording its side effects or replaying it under a mutant's overrides.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import islice

from pycparser import c_ast

from crepair.encode import ctypes as ct
from crepair.encode.env import Env
from crepair.encode.formula import LocationKind, ScopeValue
from crepair.solver import smt

#: Overrides of one mutant: AST node -> new operator (str), constant (int)
#: or NEGATE (the truth value ``e != 0`` becomes ``e == 0``).
Overrides = Mapping[c_ast.Node, "str | int"]
NEGATE = "!=0 -> ==0"


@dataclass(frozen=True, slots=True)
class Site:
    """What the mutation unit is asked about: a location's expression.

    ``root`` is the expression whose operators and constants may change (an
    ``Assignment`` node for compound assignments); ``function`` encloses it.
    ``connective``: only the operator of ``root`` (a ``&&``/``||`` whose
    operands are locations of their own) may change.
    """

    root: c_ast.Node
    kind: LocationKind
    function: str
    connective: bool = False


#: Returns the alternatives of a site: element 0 must be ``{}`` (the original).
AlternativesFn = Callable[[Site], Sequence[Overrides]]


def no_alternatives(site: Site) -> Sequence[Overrides]:
    """The alternatives function of plain verification: only the original."""
    return ({},)


@dataclass(slots=True)
class Var:
    """A declared variable: ``key`` names its SSA versions (``key#n``);
    ``unusable`` says why using it is unsupported (None: usable)."""

    key: str
    ctype: "ct.IntType | ct.ArrayType"
    unusable: str | None = None


@dataclass(slots=True)
class State:
    """One path: its ``guard`` and environment (key -> SSA term); a dead
    state (``alive`` false) is a path that left by return/break/continue."""

    guard: smt.Term
    env: Env
    alive: bool = True

    def fork(self, cond: smt.Term | None = None) -> "State":
        guard = self.guard if cond is None else smt.And(self.guard, cond)
        return State(guard, self.env.copy(), self.alive)


@dataclass(slots=True)
class Frame:
    """An inlined call: the paths that returned, and per enclosing loop the
    paths that left it by break and by continue."""

    function: str
    ret_key: str | None
    ret_type: ct.IntType
    returns: list[State] = field(default_factory=list)
    loops: list[tuple[list[State], list[State]]] = field(default_factory=list)
    jumps: dict[str, list[State]] = field(default_factory=dict)  # label -> the paths of gotos waiting for it


@dataclass(slots=True)
class Ctx:
    """Expression evaluation: ``record`` executes side effects on ``state``
    and fills ``cache``; replay rebuilds terms from ``cache`` under
    ``overrides`` (a mutant).  ``checks`` collects the checks of undefined
    behaviour of a location's expression, one list per alternative (None:
    not a location's expression, checks are assertions at once)."""

    state: State | None
    cache: dict[c_ast.Node, object]
    overrides: Overrides
    record: bool
    checks: list | None = None


#: The lexical scopes visible at a point, outermost first: each scope dict
#: (name -> Var, only ever extended) with its length at that point.
ScopeChain = tuple[tuple[dict[str, Var], int], ...]


class Scope(Sequence[ScopeValue]):
    """The scalar variables in scope at a location copy, innermost
    declaration first, as :class:`ScopeValue` records sorted by name
    (Könighofer & Bloem's Vals(r)).

    Built in O(1) from the scope ``chain`` and an environment snapshot
    ``env`` (neither is mutated later: scope dicts only grow, and an
    :class:`Env` copy is unaffected by writes to the original); the
    records are computed when first read, in O(variables in scope).
    """

    __slots__ = ("_chain", "_env", "_values")

    def __init__(self, chain: ScopeChain, env: Env):
        self._chain: ScopeChain | None = chain
        self._env: Env | None = env
        self._values: tuple[ScopeValue, ...] | None = None

    def values(self) -> tuple[ScopeValue, ...]:
        if self._values is None:
            seen: dict[str, ScopeValue] = {}
            for scope, length in reversed(self._chain):
                for name, var in islice(scope.items(), length):
                    if name in seen or var.unusable or not isinstance(var.ctype, ct.IntType):
                        continue
                    term = self._env.get(var.key)
                    if term is not None:
                        seen[name] = ScopeValue(name, term, var.ctype.bits, var.ctype.signed)
            self._values = tuple(sorted(seen.values(), key=lambda v: v.name))
            self._chain = self._env = None
        return self._values

    def __getitem__(self, i):
        return self.values()[i]

    def __len__(self) -> int:
        return len(self.values())

    def __iter__(self):
        return iter(self.values())

    def __eq__(self, other) -> bool:
        if isinstance(other, Sequence):
            return self.values() == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.values())

    def __repr__(self) -> str:
        return repr(self.values())


def has_effects(node: c_ast.Node) -> bool:
    """Whether evaluating ``node`` may call a function or assign."""
    if isinstance(node, (c_ast.FuncCall, c_ast.Assignment)):
        return True
    if isinstance(node, c_ast.UnaryOp) and node.op in ("p++", "p--", "++", "--"):
        return True
    return any(has_effects(child) for _, child in node.children())

