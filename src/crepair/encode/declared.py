"""The C types that declarations denote, for the encoder: integer types
(gcc x86-64), arrays (multi-dimensional ones flat, row-major), pointers to
scalars and structs, structs and unions with gcc's layout.  A mixin over
:class:`~crepair.encode.core.EncoderCore`; anything else is an
``UnsupportedConstruct`` naming the construct."""

from __future__ import annotations

from pycparser import c_ast

from crepair.encode import ctypes as ct
from crepair.encode import structs
from crepair.encode.core import EncoderCore
from crepair.encode.env import Env
from crepair.encode.ops import convert
from crepair.encode.walk import Ctx, State, has_effects
from crepair.errors import BadInput, UnsupportedConstruct
from crepair.frontend.preprocess import in_header, in_user_file
from crepair.solver import smt


class DeclaredTypes(EncoderCore):
    """The type of a declaration's type node (``_type``)."""

    def _type(self, node: c_ast.Node) -> "ct.IntType | ct.ArrayType | ct.PointerType | ct.StructType":
        """The C type a declaration's type node denotes.  Raises
        ``UnsupportedConstruct`` for types the encoder does not model
        (pointers to pointers, arrays or functions, void pointers, unions)."""
        match node:
            case c_ast.TypeDecl(type=c_ast.IdentifierType(names=names)):
                if len(names) == 1 and names[0] in self._p.typedefs:
                    typedef = self._p.typedefs[names[0]]
                    try:
                        return self._type(typedef)
                    except UnsupportedConstruct as e:
                        if not (in_header(typedef) and in_user_file(node)):
                            raise
                        # a library header's type (FILE): said where the user's program names it
                        what = "FILE (only a FILE * holding stdin, stdout or stderr is modelled)" \
                            if names[0] == "FILE" else f"{names[0]}: {e.construct}"
                        raise UnsupportedConstruct(self._point(node), what) from None
                return ct.from_names(names, self._point(node))
            case c_ast.TypeDecl(type=c_ast.Struct() as struct):
                return self._struct_type(struct)
            case c_ast.TypeDecl(type=c_ast.Union() as union):
                return self._struct_type(union)
            case c_ast.TypeDecl(type=c_ast.Enum()):
                raise UnsupportedConstruct(self._point(node), "enum")
            case c_ast.Typename(type=t) | c_ast.Decl(type=t):
                return self._type(t)
            case c_ast.ArrayDecl(type=c_ast.PtrDecl()):
                raise UnsupportedConstruct(self._point(node), "pointer array (pointers are not supported)")
            case c_ast.ArrayDecl(type=inner, dim=dim):
                elem = self._type(inner)
                if isinstance(elem, ct.ArrayType):  # T a[dim][d1]...: flat, row-major (crepair.encode.dimensions)
                    return ct.ArrayType(elem.elem, dim, (self._inner_dimension(elem.size, node),) + elem.inner)
                return ct.ArrayType(elem, dim)
            case c_ast.PtrDecl(type=c_ast.FuncDecl()):
                raise UnsupportedConstruct(self._point(node), "function pointer")
            case c_ast.PtrDecl(type=c_ast.TypeDecl(type=c_ast.IdentifierType(names=[name]))) if self._is_file(name):
                return ct.STREAM  # a standard stream (crepair.encode.streams)
            case c_ast.PtrDecl(type=inner):
                elem = self._type(inner)
                if isinstance(elem, ct.ArrayType):
                    raise UnsupportedConstruct(self._point(node), "pointer to array")
                if isinstance(elem, ct.PointerType):
                    raise UnsupportedConstruct(self._point(node), "pointer to pointer")
                if elem == ct.VOID:
                    raise UnsupportedConstruct(self._point(node), "void pointer")
                return ct.PointerType(elem)
        raise UnsupportedConstruct(self._point(node), f"type {type(node).__name__}")

    def _is_file(self, name: str) -> bool:
        """Whether typedef ``name`` is (through other typedefs) the library
        headers' ``FILE`` (``struct __crepair_FILE``)."""
        for _ in range(16):
            node = self._p.typedefs.get(name)
            match node:
                case c_ast.TypeDecl(type=c_ast.Struct(name="__crepair_FILE")):
                    return True
                case c_ast.TypeDecl(type=c_ast.IdentifierType(names=[name])):
                    continue
            return False
        return False

    def _inner_dimension(self, dim: c_ast.Node | None, node: c_ast.Node) -> int:
        """The value of an inner dimension of a multi-dimensional array,
        which must be an integer constant expression (``[8 + 1]``)."""
        value = None
        if dim is not None and not has_effects(dim):
            try:
                ctx = Ctx(State(smt.BoolVal(True), Env(self._keys)), {}, {}, True)
                value = smt.simplify(convert(self._expr(dim, ctx), ct.LONG).term)
            except (BadInput, UnsupportedConstruct, KeyError):  # KeyError: a variable (no value here)
                value = None
        if value is None or not smt.is_bv_value(value) or value.as_signed_long() <= 0:
            raise UnsupportedConstruct(self._point(node), "multi-dimensional array with an inner dimension that is "
                                       "not a positive integer constant")
        return value.as_signed_long()

    def _struct_type(self, node: "c_ast.Struct | c_ast.Union") -> ct.StructType:
        """The type of ``struct tag`` or ``union tag`` (its definition
        anywhere in the file) or of an anonymous definition."""
        union = isinstance(node, c_ast.Union)
        if node.decls is not None and node.name is None:
            return structs.layout("<anonymous>", node.decls, self._type, self._point, union=union)
        tag = f"union {node.name}" if union else node.name
        known = self._struct_types.get(tag)
        if known is not None:
            return known
        if self._struct_defs is None:
            self._struct_defs = {}
            for found in _struct_definitions(self._p.ast):
                self._struct_defs.setdefault(f"union {found.name}" if isinstance(found, c_ast.Union) else found.name,
                                             found)
        definition = node if node.decls is not None else self._struct_defs.get(tag)
        if definition is None:
            raise UnsupportedConstruct(self._point(node),
                                       f"{'union' if union else 'struct'} {node.name} that is not defined")
        self._struct_types[tag] = ct.StructType(node.name, (), 0, is_union=union)  # a struct containing itself
        try:
            stype = structs.layout(node.name, definition.decls, self._type, self._point, union=union)
        finally:
            del self._struct_types[tag]
        self._struct_types[tag] = stype
        return stype


def _struct_definitions(node: c_ast.Node):
    """The ``struct`` and ``union`` nodes of ``node`` that have a member list, in order."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, (c_ast.Struct, c_ast.Union)) and n.decls is not None and n.name is not None:
            yield n
        stack.extend(child for _, child in reversed(n.children()))
