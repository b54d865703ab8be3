"""SSA environments that fork and snapshot in constant time.

A path state of the walk maps each variable key to its current SSA term
(Clarke, Kroening, Lerda, TACAS'04, Sect. 3; AllRepair FM'16, Sect. 3.1).
Paths fork at every branch and loop iteration, every location copy keeps
the values in scope (Vals(r)), and merges compare the forked paths: with
plain dicts each of these copies or scans the whole environment, which
makes the encoding quadratic in the program size.

:class:`Env` is a dict-like view of a persistent 32-way trie indexed by the
key's dense number (:class:`Keys`, shared by the environments of one
encoding): :meth:`Env.copy` shares the trie, a write copies the one path
it changes (O(log32 n)), and :func:`differing` walks only the subtries
that are not shared, so a merge costs what the merged paths changed.

>>> keys = Keys()
>>> a = Env(keys); a["x"] = 1; a["y"] = 2
>>> b = a.copy(); b["y"] = 3
>>> (a["y"], b["y"], sorted(differing([a, b])))
(2, 3, ['y'])
"""

from __future__ import annotations

from collections.abc import Iterable

_BITS = 5
_WIDTH = 1 << _BITS
_MASK = _WIDTH - 1
_EMPTY = (None,) * _WIDTH


class Keys:
    """Dense 0-based numbers of the keys of one encoding, in first-write order."""

    __slots__ = ("index", "names")

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.names: list[str] = []

    def number(self, key: str) -> int:
        i = self.index.get(key)
        if i is None:
            i = self.index[key] = len(self.names)
            self.names.append(key)
        return i


class Env:
    """A mutable, dict-like environment (key -> term; None is never a value)
    whose :meth:`copy` is O(1): copies share the trie, and writes never
    change a node that another environment may see."""

    __slots__ = ("_keys", "_root", "_shift")

    def __init__(self, keys: Keys, root: list | None = None, shift: int = 0):
        self._keys = keys
        self._root = root  # a list of _WIDTH children (values at shift 0), or None when empty
        self._shift = shift  # the bit position indexed by the root

    def copy(self) -> "Env":
        return Env(self._keys, self._root, self._shift)

    def get(self, key: str, default=None):
        i = self._keys.index.get(key)
        if i is None or self._root is None or i >> (self._shift + _BITS):
            return default
        node = self._root
        shift = self._shift
        while shift:
            node = node[(i >> shift) & _MASK]
            if node is None:
                return default
            shift -= _BITS
        value = node[i & _MASK]
        return default if value is None else value

    def __getitem__(self, key: str):
        value = self.get(key)
        if value is None:
            raise KeyError(key)
        return value

    def __contains__(self, key: str) -> bool:
        return self.get(key) is not None

    def __setitem__(self, key: str, value) -> None:
        self._put(self._keys.number(key), value)

    def discard(self, key: str) -> None:
        """Remove ``key`` if present."""
        if key in self:
            self._put(self._keys.index[key], None)

    def _put(self, i: int, value) -> None:
        root, shift = self._root, self._shift
        if root is None:
            root = list(_EMPTY)
        while i >> (shift + _BITS):
            root = [root, *_EMPTY[1:]]
            shift += _BITS
        root = list(root)
        node, s = root, shift
        while s:
            j = (i >> s) & _MASK
            child = node[j]
            child = list(_EMPTY) if child is None else list(child)
            node[j] = child
            node = child
            s -= _BITS
        node[i & _MASK] = value
        self._root, self._shift = root, shift


def differing(envs: Iterable[Env]) -> list[str]:
    """The keys whose value is not the same object in every one of ``envs``
    (present in some and absent in others included), in no given order.
    Only the parts of the tries that are not shared are visited."""
    envs = list(envs)
    if not envs:
        return []
    shift = max(e._shift for e in envs)
    roots = []
    for e in envs:
        root, s = e._root, e._shift
        while root is not None and s < shift:  # a smaller trie is the first child of a taller one
            root = [root, *_EMPTY[1:]]
            s += _BITS
        roots.append(root)
    found: list[int] = []
    _walk(roots, shift, 0, found)
    names = envs[0]._keys.names
    return [names[i] for i in found]


def _walk(nodes: list, shift: int, base: int, found: list[int]) -> None:
    first = nodes[0]
    if all(n is first for n in nodes):
        return
    rows = [_EMPTY if n is None else n for n in nodes]
    pair = len(rows) == 2
    for j, children in enumerate(zip(*rows)):
        c0 = children[0]
        if (c0 is children[1]) if pair else all(c is c0 for c in children):
            continue
        if shift:
            _walk(list(children), shift - _BITS, base | (j << shift), found)
        else:
            found.append(base | j)
