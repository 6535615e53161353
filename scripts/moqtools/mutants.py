#!/usr/bin/env python3
"""Generates mutants of the core as mutant schemata: one copy of the sources, every mutant in it.

The generator parses the core's sources with libclang, finds mutation points by standard
operators and writes a copy of the sources in which every point is a run-time switch
(util/schema.hpp): `(::moq::mutation::schema_on(17) != static_cast<bool>(cond))` behaves as
the original unless generated mutant 17 is the one switched on (MOQ_MUTANT names it). One
build therefore holds every mutant. The original sources are never edited.

Operators (a mutant's id is `gen.FILE:LINE:COLUMN.OPERATOR`, FILE relative to core/):

  rel_flip       < and <=, > and >=, == and != swapped
  off_by_one     an integer literal operand of a comparison or arithmetic one lower (0: one higher)
  logic_swap     && and || swapped
  cond_negate    the condition of an if, while, do, for or ?: negated
  call_delete    a call whose result is unused is not made
  bool_return    `return true` and `return false` swapped
  incdec_remove  ++ or -- not done
  stmt_delete    an assignment or compound assignment statement not done
  arith_swap     + and -, * and / swapped on integers (also in +=, -=, *=, /=)
  return_default `return EXPR;` of a bool, integer, enum or std::optional answers the
                 type's value-initialised value (false, 0, the enum's 0, nullopt)
  block_delete   the body of an `if` without `else` not run (its condition still is)
  order_weaken   a memory_order_acquire, _release, _acq_rel or _seq_cst argument is
                 memory_order_relaxed (only a ThreadSanitizer run can tell: scripts/mutate
                 runs these only when --operator names them)

Points are skipped inside macro expansions (MOQ_SITE, the assertion macros), static
assertions, constant-only contexts (constexpr variables, if constexpr, template and array
bounds, enumerators, default arguments) and the headers the reference models include (a
mutant there would change the judge too).

The copy is checked: every file compiled with the build's own flags (compile_commands.json);
a point whose schema does not compile is found by bisection, left out of the copy and
reported as CompileError.

As a Meson custom target (core/meson.build, -Dschemata=true):

  python3 -m moqtools.mutants build --root SRC --build-root BUILD --outdir BUILD/core --sources kio/waiter.cpp ...

writes BUILD/core/schemata_<dir>_<name>.cpp for every source, the headers under
BUILD/core/kio/ and BUILD/core/model/ (found before the originals: Meson puts the build
folder of an include directory before its source folder), schemata_table.cpp (the table
the runtime registers), schemata.hpp (an order dependency for every includer),
schemata_mutants.json (every mutant, with CompileError ones) and a depfile.
"""

import argparse
import concurrent.futures
import dataclasses
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

try:
    import clang.cindex as cindex
except ImportError:  # Debian's python3-clang-14 installs for the system interpreter
    sys.path.append("/usr/lib/python3/dist-packages")
    try:
        import clang.cindex as cindex
    except ImportError:
        print("mutagen: the libclang Python bindings are missing (Debian: python3-clang-14)", file=sys.stderr)
        sys.exit(2)

K = cindex.CursorKind

OPERATORS = ["rel_flip", "off_by_one", "logic_swap", "cond_negate", "call_delete", "bool_return",
             "incdec_remove", "stmt_delete", "arith_swap", "return_default", "block_delete", "order_weaken"]
MUTATED_DIRS = ["kio", "model"]
RELATIONS = {"<": ("less", "<="), "<=": ("less_equal", "<"), ">": ("greater", ">="),
             ">=": ("greater_equal", ">"), "==": ("equal", "!="), "!=": ("not_equal", "==")}
RELATION_NAMES = {"<": "less", "<=": "less_equal", ">": "greater", ">=": "greater_equal", "==": "equal",
                  "!=": "not_equal"}
ARITHMETIC = {"+", "-", "*", "/", "%", "+=", "-=", "*=", "/=", "<<", ">>"}
FUNCTIONS = {K.FUNCTION_DECL, K.CXX_METHOD, K.CONSTRUCTOR, K.DESTRUCTOR, K.CONVERSION_FUNCTION,
             K.FUNCTION_TEMPLATE, K.LAMBDA_EXPR}
CONSTANT_ONLY = {K.STATIC_ASSERT, K.ENUM_CONSTANT_DECL, K.PARM_DECL, K.TEMPLATE_NON_TYPE_PARAMETER,
                 K.TEMPLATE_TYPE_PARAMETER, K.TEMPLATE_TEMPLATE_PARAMETER, K.TYPE_REF, K.TEMPLATE_REF,
                 K.FIELD_DECL}
SCALAR_TYPES = {cindex.TypeKind.BOOL, cindex.TypeKind.CHAR_U, cindex.TypeKind.UCHAR, cindex.TypeKind.USHORT,
                cindex.TypeKind.UINT, cindex.TypeKind.ULONG, cindex.TypeKind.ULONGLONG, cindex.TypeKind.CHAR_S,
                cindex.TypeKind.SCHAR, cindex.TypeKind.SHORT, cindex.TypeKind.INT, cindex.TypeKind.LONG,
                cindex.TypeKind.LONGLONG, cindex.TypeKind.POINTER}
ARITHMETIC_SWAPS = {"+": ("plus", "-"), "-": ("minus", "+"), "*": ("times", "/"), "/": ("divided", "*")}
ARITHMETIC_NAMES = {"+": "plus", "-": "minus", "*": "times", "/": "divided"}
STRONG_ORDERS = {"memory_order_acquire", "memory_order_release", "memory_order_acq_rel", "memory_order_seq_cst"}
ON = "::moq::mutation::schema_on({index})"
SKIP = "(" + ON + " ? void() : static_cast<void>({0}))"  # a statement left out


class UsageError(Exception):
    pass


@dataclasses.dataclass
class Point:
    """One mutant: the source range it replaces, the holes kept from the original inside
    that range (rendered recursively, so points nest), and how the switch is written."""
    file: str  # relative to the root, e.g. core/model/group.cpp
    operator: str
    line: int  # of the mutated token
    column: int
    start: int  # byte range replaced
    end: int
    end_line: int
    end_column: int
    holes: list  # [(start, end)] inside [start, end), in order
    form: str  # the template, with {index} and {0}, {1}... for the holes
    original: str  # what the mutant changes, for people
    replacement: str
    index: int = -1
    status: str = "compiled"
    error: str = ""
    function: str = ""  # the enclosing function, Class::name ("-" outside any)
    text: str = ""  # the mutated token's line, stripped
    text_column: int = 0  # the token's column within `text`, from 1
    occurrence: int = 1  # the same key's how-manieth in its file, by line (a repeated line)

    @property
    def id(self):
        return f"gen.{self.file.removeprefix('core/')}:{self.line}:{self.column}.{self.operator}"

    @property
    def key(self):
        """What names the mutant across edits elsewhere in its file: no line number."""
        return stable_key(self.file.removeprefix("core/"), self.operator, self.function, self.text_column, self.text,
                          self.occurrence)

    def rank(self):
        # A point whose one hole is its whole range wraps any point of the same range; a
        # statement wrapper (block_delete) wraps the expression wrappers of its statement.
        if self.operator == "block_delete":
            return -1
        return 0 if self.holes == [(self.start, self.end)] else 1


def stable_key(file, operator, function, text_column, text, occurrence=1):
    """A mutant's key in scripts/equivalent-mutants.txt: its file, operator, function and
    the text of its line with the column in it (the line's text as a JSON string; a
    second line of the same text in the same function is COLUMN#2)."""
    where = f"{text_column}#{occurrence}" if occurrence > 1 else f"{text_column}"
    return f"{file} {operator} {function} {where} {json.dumps(text)}"


# ---- finding points ----


@dataclasses.dataclass
class EndLocation:
    """A line and column where an extent ends short of a point's range (its `;`)."""
    line: int
    column: int


def unwrap(cursor):
    """The expression under implicit conversions and parentheses' wrappers."""
    while cursor.kind == K.UNEXPOSED_EXPR:
        children = list(cursor.get_children())
        if len(children) != 1:
            break
        cursor = children[0]
    return cursor


def offsets(cursor):
    return cursor.extent.start.offset, cursor.extent.end.offset


CLASSES = {K.CLASS_DECL, K.STRUCT_DECL, K.UNION_DECL, K.CLASS_TEMPLATE, K.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION}


def function_name(chain):
    """The innermost named function of a cursor chain, with its classes (Class::name), or
    "-" outside any; no spaces (operator bool -> operatorbool), so a key splits on them."""
    for node in reversed(chain):
        if node.kind in FUNCTIONS and node.kind != K.LAMBDA_EXPR:
            names = [node.spelling]
            parent = node.semantic_parent
            while parent is not None and parent.kind in CLASSES:
                names.insert(0, parent.spelling)
                parent = parent.semantic_parent
            return "::".join(names).replace(" ", "") or "-"
    return "-"


class Finder:
    """Walks one translation unit and collects the points of the files it is asked for."""

    def __init__(self, tu, root, wanted):
        self.tu = tu
        self.root = root
        self.wanted = wanted  # absolute paths -> relative names
        self.points = {}
        self.macros = {}  # file -> [(start, end)] of macro expansions
        self.sites = {}  # file -> [(start, end)] of MOQ_SITE expansions
        self.texts = {}
        self.lines = {}
        self.function = "-"
        self.real_paths = {}
        self.consteval = {}
        for cursor in tu.cursor.get_children():
            if cursor.kind == K.MACRO_INSTANTIATION and cursor.location.file:
                name = self.path_of(cursor)
                if name in wanted:
                    self.macros.setdefault(name, []).append(offsets(cursor))
                    if cursor.spelling.startswith("MOQ_SITE"):
                        self.sites.setdefault(name, []).append(offsets(cursor))

    def path_of(self, cursor):
        file = cursor.location.file
        if file is None:
            return None
        name = file.name
        if name not in self.real_paths:
            self.real_paths[name] = os.path.realpath(name)
        return self.real_paths[name]

    def text(self, path):
        if path not in self.texts:
            with open(path, "rb") as source:
                self.texts[path] = source.read()
        return self.texts[path]

    def run(self):
        self.walk(self.tu.cursor, [])
        return self.points

    def walk(self, cursor, parents):
        for child in cursor.get_children():
            if child.kind == K.MACRO_INSTANTIATION or child.kind == K.MACRO_DEFINITION:
                continue
            path = self.path_of(child)
            if path is None or path not in self.wanted:
                continue
            self.visit(child, parents + [cursor], path)
            self.walk(child, parents + [cursor])

    # -- contexts --

    def runtime_context(self, parents, cursor):
        """Inside a function body or initialiser, not in a constant-only or unevaluated part."""
        in_function = False
        chain = parents[1:] + [cursor]
        for position, node in enumerate(chain):
            if node.kind in FUNCTIONS:
                in_function = True
                if node.kind != K.LAMBDA_EXPR and self.declared_consteval(node):
                    return False
            if node.kind in CONSTANT_ONLY:
                return False
            if node.kind == K.VAR_DECL and self.has_keyword(node, ("constexpr", "constinit")):
                return False
            if node.kind == K.IF_STMT and position + 1 < len(chain) and self.if_constexpr(node):
                return False
            if node.kind in (K.CXX_UNARY_EXPR, K.DECL_REF_EXPR) and node is not cursor:
                return False  # sizeof, alignof, decltype and the like
        return in_function

    def declared_consteval(self, function):
        key = offsets(function)
        if key not in self.consteval:
            self.consteval[key] = False
            for token in function.get_tokens():
                if token.spelling in ("{", ":", "=", ";"):
                    break
                if token.spelling == "consteval":
                    self.consteval[key] = True
        return self.consteval[key]

    def has_keyword(self, declaration, words):
        for token in declaration.get_tokens():
            if token.spelling in words:
                return True
            if token.spelling in ("=", "{", "("):
                return False
        return False

    def if_constexpr(self, statement):
        tokens = list(statement.get_tokens())
        return len(tokens) > 1 and tokens[1].spelling == "constexpr"

    def in_macro(self, path, start, end, holes=()):
        """Whether [start, end) touches a macro expansion other than wholly inside a hole."""
        for macro_start, macro_end in self.macros.get(path, []):
            if macro_end <= start or macro_start >= end:
                continue
            if any(hs <= macro_start and macro_end <= he for hs, he in holes):
                continue
            return True
        return False

    def line_text(self, path, line):
        """(the line's text stripped, its indent in bytes)."""
        if path not in self.lines:
            self.lines[path] = self.text(path).decode("utf-8", "replace").split("\n")
        whole = self.lines[path][line - 1] if 0 < line <= len(self.lines[path]) else ""
        stripped = whole.lstrip()
        return stripped.rstrip(), len(whole.encode()) - len(stripped.encode())

    def add(self, path, operator, token_location, start, end, end_location, holes, form, original, replacement):
        if self.in_macro(path, start, end, holes):
            return
        text, indent = self.line_text(path, token_location.line)
        point = Point(file=self.wanted[path], operator=operator, line=token_location.line,
                      column=token_location.column, start=start, end=end, end_line=end_location.line,
                      end_column=end_location.column, holes=list(holes), form=form, original=original,
                      replacement=replacement, function=self.function, text=text,
                      text_column=token_location.column - indent)
        self.points.setdefault(point.id, point)

    # -- operators --

    def visit(self, cursor, parents, path):
        if path is None or path not in self.wanted:
            return
        kind = cursor.kind
        if kind not in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR, K.CALL_EXPR, K.UNARY_OPERATOR,
                        K.IF_STMT, K.WHILE_STMT, K.DO_STMT, K.FOR_STMT, K.CONDITIONAL_OPERATOR,
                        K.RETURN_STMT, K.INTEGER_LITERAL, K.DECL_REF_EXPR):
            return
        start, end = offsets(cursor)
        if any(ms <= start < me or ms < end <= me for ms, me in self.macros.get(path, [])):
            return  # written by a macro (MOQ_SITE, an assertion) or inside its arguments
        if not self.runtime_context(parents, cursor):
            return
        self.function = function_name(parents + [cursor])
        if kind == K.BINARY_OPERATOR:
            self.binary(cursor, parents, path)
        elif kind == K.COMPOUND_ASSIGNMENT_OPERATOR:
            self.compound_assignment(cursor, parents, path)
        elif kind == K.CALL_EXPR:
            self.overloaded_comparison(cursor, path)
            self.deleted_call(cursor, parents, path)
            self.overloaded_assignment(cursor, parents, path)
        elif kind == K.UNARY_OPERATOR:
            self.step(cursor, parents, path)
        elif kind in (K.IF_STMT, K.WHILE_STMT, K.DO_STMT, K.FOR_STMT, K.CONDITIONAL_OPERATOR):
            self.condition(cursor, path)
            if kind == K.IF_STMT:
                self.deleted_block(cursor, path)
        elif kind == K.RETURN_STMT:
            self.returned_bool(cursor, path)
            self.returned_default(cursor, parents, path)
        elif kind == K.INTEGER_LITERAL:
            self.literal(cursor, parents, path)
        elif kind == K.DECL_REF_EXPR:
            self.weakened_order(cursor, path)

    def operator_token(self, cursor, left):
        """The operator token of a binary expression: the first token after its left operand."""
        left_end = left.extent.end.offset
        for token in cursor.get_tokens():
            if token.extent.start.offset >= left_end:
                return token
        return None

    def dependent(self, *cursors):
        """Whether an operand's type waits for a template argument (its operators are unknown)."""
        return any(c.type.kind == cindex.TypeKind.DEPENDENT or "type-parameter" in c.type.spelling
                   for c in cursors)

    def written_binary(self, cursor):
        """(left, operator token, right) of an expression written `left op right`, or None."""
        children = list(cursor.get_children())
        if len(children) != 2:
            return None
        left, right = children
        token = self.operator_token(cursor, left)
        if token is None or not self.operands_around(cursor, left, token, right):
            return None
        return left, token, right

    def binary(self, cursor, parents, path):
        parts = self.written_binary(cursor)
        if parts is None:
            return
        left, token, right = parts
        op = token.spelling
        start, end = offsets(cursor)
        holes = [offsets(left), offsets(right)]
        if op in RELATIONS:
            if self.dependent(left, right):
                return
            self.comparison(path, cursor, token, op, holes)
        elif op in ("&&", "||"):
            if op == "&&":
                form = ("((static_cast<bool>({0}) != " + ON + ") ? static_cast<bool>({1}) : " + ON + ")")
            else:
                form = ("((static_cast<bool>({0}) != " + ON + ") ? !" + ON + " : static_cast<bool>({1}))")
            self.add(path, "logic_swap", token.location, start, end, cursor.extent.end, holes, form, op,
                     "||" if op == "&&" else "&&")
        elif op in ARITHMETIC_SWAPS:
            if self.integers(cursor, left, right):
                self.swapped_arithmetic(path, cursor, token, op, holes, "schema_arithmetic")
        elif op == "=":
            self.deleted_assignment(cursor, parents, path)

    def compound_assignment(self, cursor, parents, path):
        parts = self.written_binary(cursor)
        if parts is None:
            return
        left, token, right = parts
        op = token.spelling.removesuffix("=")
        if op in ARITHMETIC_SWAPS and self.integers(cursor, left, right):
            self.swapped_arithmetic(path, cursor, token, op, [offsets(left), offsets(right)],
                                    "schema_arithmetic_assign")
        self.deleted_assignment(cursor, parents, path)

    def integers(self, *cursors):
        """Whether every operand (and the result) is a built-in integer: no pointer
        arithmetic, no floating point, nothing waiting for a template argument."""
        return not self.dependent(*cursors) and all(
            c.type.get_canonical().kind in SCALAR_TYPES - {cindex.TypeKind.BOOL, cindex.TypeKind.POINTER}
            for c in cursors)

    def swapped_arithmetic(self, path, cursor, token, op, holes, helper):
        swapped = ARITHMETIC_SWAPS[op][1]
        form = ("::moq::mutation::" + helper + "<::moq::mutation::Arithmetic::" + ARITHMETIC_NAMES[op] +
                ", ::moq::mutation::Arithmetic::" + ARITHMETIC_NAMES[swapped] + ">({index}, {0}, {1})")
        start, end = offsets(cursor)
        equals = "=" if helper == "schema_arithmetic_assign" else ""
        self.add(path, "arith_swap", token.location, start, end, cursor.extent.end, holes, form, op + equals,
                 swapped + equals)

    def deleted_assignment(self, cursor, parents, path):
        """An assignment whose value is unused: the statement left out."""
        if not self.statement_position(cursor, parents) or self.guarded_by_site(cursor, parents, path):
            return
        start, end = offsets(cursor)
        text = self.text(path)[start:end].decode()
        self.add(path, "stmt_delete", cursor.extent.start, start, end, cursor.extent.end, [(start, end)], SKIP,
                 " ".join(text.split()), "")

    def overloaded_assignment(self, cursor, parents, path):
        """`a = b` (or `a += b`...) through a class's operator: the statement left out."""
        op = cursor.spelling.removeprefix("operator")
        if not cursor.spelling.startswith("operator") or op not in ("=", "+=", "-=", "*=", "/=", "|=", "&=",
                                                                     "^=", "%=", "<<=", ">>="):
            return
        children = list(cursor.get_children())
        if len(children) != 3:
            return
        tokens = list(children[1].get_tokens())
        if len(tokens) != 1 or tokens[0].spelling != op:
            return  # an assignment the source does not spell (a defaulted operator's own)
        self.deleted_assignment(cursor, parents, path)

    def comparison(self, path, cursor, token, op, holes):
        name, flipped = RELATIONS[op]
        form = ("::moq::mutation::schema_compare<::moq::mutation::Relation::" + name +
                ", ::moq::mutation::Relation::" + RELATION_NAMES[flipped] + ">({index}, {0}, {1})")
        start, end = offsets(cursor)
        self.add(path, "rel_flip", token.location, start, end, cursor.extent.end, holes, form, op, flipped)

    def operands_around(self, cursor, left, token, right):
        """Whether the expression is exactly `left op right`, in that order."""
        start, end = offsets(cursor)
        return (left.extent.start.offset == start and right.extent.end.offset == end and
                left.extent.end.offset <= token.extent.start.offset and
                token.extent.end.offset <= right.extent.start.offset)

    def overloaded_comparison(self, cursor, path):
        op = cursor.spelling.removeprefix("operator")
        if not cursor.spelling.startswith("operator") or op not in RELATIONS:
            return
        children = list(cursor.get_children())
        if len(children) != 3:
            return
        if children[0].kind == K.CALL_EXPR and children[0].spelling == "operator<=>":
            # `a < b` rewritten through a defaulted <=>: (a <=> b) < 0; the written
            # operands are the inner call's
            cursor = children[0]
            children = list(cursor.get_children())
            if len(children) != 3:
                return
        left, middle, right = children
        tokens = list(middle.get_tokens())
        if len(tokens) != 1 or tokens[0].spelling != op:
            return
        if self.dependent(left, right) or not self.operands_around(cursor, left, tokens[0], right):
            return
        self.comparison(path, cursor, tokens[0], op, [offsets(left), offsets(right)])

    def statement_position(self, cursor, parents):
        """Whether the value of `cursor` is unused: an expression statement or a for loop's step."""
        node = cursor
        for parent in reversed(parents):
            if parent.kind == K.UNEXPOSED_EXPR and len(list(parent.get_children())) == 1:
                node = parent
                continue
            if parent.kind == K.COMPOUND_STMT:
                return True
            if parent.kind in (K.CASE_STMT, K.DEFAULT_STMT, K.LABEL_STMT):
                return offsets(node) == offsets(list(parent.get_children())[-1])
            if parent.kind in (K.IF_STMT, K.WHILE_STMT):
                # a branch or the body, after the parenthesised header
                close = self.header_close(parent)
                return close is not None and node.extent.start.offset > close
            if parent.kind == K.DO_STMT:
                return offsets(node) == offsets(list(parent.get_children())[0])
            if parent.kind == K.FOR_STMT:
                parts = self.for_parts(parent)
                if parts is not None and parts[2] is not None and offsets(node) == parts[2]:
                    return True  # the step
                close = self.header_close(parent)  # or the body
                return close is not None and node.extent.start.offset > close
            return False
        return False

    def deleted_call(self, cursor, parents, path):
        if cursor.spelling.startswith("operator") and cursor.spelling != "operator()":
            return
        referenced = cursor.referenced
        if referenced is not None and referenced.kind == K.CONSTRUCTOR:
            return
        tokens = list(cursor.get_tokens())
        if not tokens or tokens[-1].spelling != ")":
            return  # an implicit construction, not a call written in the source
        if not self.statement_position(cursor, parents):
            return
        if cursor.spelling == "schedule_point":
            return  # the simulator's hook: production code calls nothing there
        if self.guarded_by_site(cursor, parents, path):
            return  # the hand-placed site in the condition is this mutant already
        start, end = offsets(cursor)
        text = self.text(path)[start:end].decode()
        self.add(path, "call_delete", cursor.extent.start, start, end, cursor.extent.end, [(start, end)], SKIP,
                 " ".join(text.split()), "")

    def guarded_by_site(self, cursor, parents, path):
        """Whether the statement is the body of an if whose condition holds a MOQ_SITE."""
        for parent in reversed(parents):
            if parent.kind == K.UNEXPOSED_EXPR:
                continue
            if parent.kind != K.IF_STMT:
                return False
            condition = self.condition_of(parent)
            if condition is None:
                return False
            start, end = offsets(condition)
            return any(start <= s and e <= end for s, e in self.sites.get(path, []))
        return False

    def step(self, cursor, parents, path):
        tokens = list(cursor.get_tokens())
        children = list(cursor.get_children())
        if len(children) != 1 or not tokens:
            return
        operand = children[0]
        if tokens[0].spelling in ("++", "--"):
            token, prefix = tokens[0], True
        elif tokens[-1].spelling in ("++", "--"):
            token, prefix = tokens[-1], False
        else:
            return
        if unwrap(operand).type.get_canonical().kind not in SCALAR_TYPES:
            return
        start, end = offsets(cursor)
        name = self.text(path)[operand.extent.start.offset:operand.extent.end.offset].decode()
        if self.statement_position(cursor, parents):
            form = SKIP
            holes = [(start, end)]
        else:
            helper = ("schema_pre_" if prefix else "schema_post_") + (
                "increment" if token.spelling == "++" else "decrement")
            form = "::moq::mutation::" + helper + "({index}, {0})"
            holes = [offsets(operand)]
        original = token.spelling + name if prefix else name + token.spelling
        self.add(path, "incdec_remove", token.location, start, end, cursor.extent.end, holes, form, original, name)

    def for_parts(self, statement):
        """(init, condition, step) byte ranges of a for statement, None where empty."""
        tokens = list(statement.get_tokens())
        if len(tokens) < 2 or tokens[1].spelling != "(":
            return None
        depth = 0
        separators = []
        close = None
        for token in tokens[1:]:
            if token.spelling in ("(", "[", "{"):
                depth += 1
            elif token.spelling in (")", "]", "}"):
                depth -= 1
                if depth == 0:
                    close = token
                    break
            elif token.spelling == ";" and depth == 1:
                separators.append(token)
        if close is None or len(separators) != 2:
            return None

        def between(a, b):
            return None if a.extent.end.offset == b.extent.start.offset else (a.extent.end.offset,
                                                                              b.extent.start.offset)
        return between(tokens[1], separators[0]), between(*separators), between(separators[1], close)

    def condition_of(self, statement):
        """The condition expression of an if, while, do or for, or None (a declaration, constexpr)."""
        children = list(statement.get_children())
        if statement.kind == K.DO_STMT:
            return children[-1] if len(children) == 2 else None
        if statement.kind == K.FOR_STMT:
            parts = self.for_parts(statement)
            if not parts or parts[1] is None:
                return None
            for child in children:
                if child.kind != K.DECL_STMT and self.spans(child, parts[1]):
                    return child
            return None
        close = self.header_close(statement)
        if close is None:
            return None
        for child in children:
            if child.extent.end.offset <= close and self.ends_at(child, close):
                return None if child.kind in (K.VAR_DECL, K.DECL_STMT) else child
        return None

    def header_close(self, statement):
        """The offset of the `)` closing an if's or while's header; None for if constexpr."""
        tokens = list(statement.get_tokens())
        if len(tokens) < 2 or tokens[1].spelling != "(":
            return None
        depth = 0
        for token in tokens[1:]:
            if token.spelling == "(":
                depth += 1
            elif token.spelling == ")":
                depth -= 1
                if depth == 0:
                    return token.extent.start.offset
        return None

    def spans(self, child, part):
        """Whether the child expression is the whole of a byte range (ignoring blanks)."""
        return child.extent.start.offset >= part[0] and child.extent.end.offset <= part[1] and \
            not self.text_between(child, part)

    def text_between(self, child, part):
        text = self.texts_for(child)
        return (text[part[0]:child.extent.start.offset] + text[child.extent.end.offset:part[1]]).strip()

    def texts_for(self, cursor):
        return self.text(self.path_of(cursor))

    def ends_at(self, child, close):
        text = self.texts_for(child)
        return not text[child.extent.end.offset:close].strip()

    def condition(self, cursor, path):
        if cursor.kind == K.CONDITIONAL_OPERATOR:
            children = list(cursor.get_children())
            if len(children) != 3:
                return
            condition = children[0]
            question = self.operator_token(cursor, condition)
            if question is None or question.spelling != "?":
                return
            where = question.location
        else:
            condition = self.condition_of(cursor)
            if condition is None:
                return
            keyword = list(cursor.get_tokens())[0]
            if cursor.kind == K.DO_STMT:  # named by its `while`
                keyword = [t for t in cursor.get_tokens() if t.spelling == "while" and
                           t.extent.end.offset <= condition.extent.start.offset][-1]
            where = keyword.location
        start, end = offsets(condition)
        if (start, end) in self.sites.get(path, []):
            return  # the condition is a hand-placed site: switching it off is that site's mutant
        text = self.text(path)[start:end].decode()
        form = "(" + ON + " != static_cast<bool>({0}))"
        self.add(path, "cond_negate", where, start, end, condition.extent.end, [(start, end)], form,
                 " ".join(text.split()), "!(" + " ".join(text.split()) + ")")

    def returned_bool(self, cursor, path):
        children = list(cursor.get_children())
        if len(children) != 1:
            return
        value = unwrap(children[0])
        if value.kind != K.CXX_BOOL_LITERAL_EXPR:
            return
        start, end = offsets(value)
        literal = self.text(path)[start:end].decode()
        if literal not in ("true", "false"):
            return
        flipped = "false" if literal == "true" else "true"
        form = "(" + ON + " ? " + flipped + " : " + literal + ")"
        self.add(path, "bool_return", value.extent.start, start, end, value.extent.end, [], form, literal, flipped)

    def returned_default(self, cursor, parents, path):
        """`return EXPR;` -> `return {};` in a function answering a bool, an integer, an
        enum or a std::optional (a literal that is the default already is left alone)."""
        children = list(cursor.get_children())
        if len(children) != 1 or self.deduced_return(parents):
            return
        returned = children[0]
        kind = returned.type.get_canonical().kind
        if self.dependent(returned):
            return
        if kind not in SCALAR_TYPES - {cindex.TypeKind.POINTER} and kind != cindex.TypeKind.ENUM and \
                not returned.type.get_canonical().spelling.startswith("std::optional<"):
            return
        if self.is_default(returned, path):
            return
        start = cursor.extent.start.offset
        value_start, value_end = offsets(returned)
        end = self.through_semicolon(path, value_end)
        if end is None:
            return
        text = " ".join(self.text(path)[value_start:value_end].decode().split())
        form = "{{ if (" + ON + ") return {{}}; return {0}; }}"
        self.add(path, "return_default", returned.extent.start, start, end, self.location_of(path, end),
                 [(value_start, value_end)], form, text, "{}")

    def deduced_return(self, parents):
        """Whether the innermost function deduces its return type (`return {}` cannot)."""
        for parent in reversed(parents):
            if parent.kind == K.LAMBDA_EXPR:
                for token in parent.get_tokens():
                    if token.spelling == "->":
                        return False
                    if token.spelling == "{":
                        return True
                return True
            if parent.kind in FUNCTIONS:
                return parent.result_type.kind == cindex.TypeKind.AUTO
        return True

    def is_default(self, value, path):
        """Whether a returned expression is its type's value-initialised value as written
        (false, 0, nullopt, {}, an enumerator worth 0), or `true` (bool_return's mutant)."""
        start, end = offsets(value)
        text = self.text(path)[start:end].decode().strip()
        if text in ("true", "false", "{}", "std::nullopt", "nullopt") or re.fullmatch(r"0[uUlLzZ]*", text):
            return True
        inner = unwrap(value)
        referenced = inner.referenced if inner.kind == K.DECL_REF_EXPR else None
        return referenced is not None and referenced.kind == K.ENUM_CONSTANT_DECL and referenced.enum_value == 0

    def through_semicolon(self, path, end):
        """The end of a statement's `;` (libclang's extents stop before it), or None."""
        semicolon = re.match(rb"\s*;", self.text(path)[end:])
        return end + semicolon.end() if semicolon else None

    def location_of(self, path, offset):
        """The line and column of a byte offset (for ends the extents do not give)."""
        before = self.text(path)[:offset]
        return EndLocation(before.count(b"\n") + 1, offset - (before.rfind(b"\n") + 1) + 1)

    def deleted_block(self, cursor, path):
        """The body of an `if` without `else` not run; the condition is still evaluated."""
        if self.if_constexpr(cursor):
            return
        close = self.header_close(cursor)
        if close is None:
            return
        bodies = [c for c in cursor.get_children() if c.extent.start.offset > close]
        if len(bodies) != 1:
            return  # an else branch
        body = bodies[0]
        if any(t.spelling == "else" and t.extent.start.offset >= body.extent.end.offset for t in cursor.get_tokens()):
            return
        if body.kind == K.NULL_STMT or (body.kind == K.COMPOUND_STMT and not list(body.get_children())):
            return
        condition = self.condition_of(cursor)
        if condition is not None and any(offsets(condition)[0] <= s and e <= offsets(condition)[1]
                                         for s, e in self.sites.get(path, [])):
            return  # the hand-placed site in the condition is this mutant already
        start, end = offsets(body)
        if body.kind != K.COMPOUND_STMT:
            end = self.through_semicolon(path, end)
            if end is None:
                return
        keyword = list(cursor.get_tokens())[0]
        text = " ".join(self.text(path)[start:end].decode().split())
        self.add(path, "block_delete", keyword.location, start, end, self.location_of(path, end), [(start, end)],
                 "if (!" + ON + ") {0}", text if len(text) <= 80 else text[:77] + "...", "")

    def weakened_order(self, cursor, path):
        """std::memory_order_acquire (release, acq_rel, seq_cst) -> std::memory_order_relaxed."""
        referenced = cursor.referenced
        if referenced is None or cursor.spelling not in STRONG_ORDERS:
            return
        if referenced.semantic_parent is None or referenced.semantic_parent.spelling != "std":
            return
        start, end = offsets(cursor)
        text = self.text(path)[start:end].decode()
        form = "(" + ON + " ? ::std::memory_order_relaxed : " + text + ")"
        self.add(path, "order_weaken", cursor.extent.start, start, end, cursor.extent.end, [], form, text,
                 "std::memory_order_relaxed")

    def literal(self, cursor, parents, path):
        # the operand of a comparison or arithmetic, through implicit conversions
        node = cursor
        operator = None
        for parent in reversed(parents):
            if parent.kind == K.UNEXPOSED_EXPR:
                node = parent
                continue
            if parent.kind in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR):
                children = list(parent.get_children())
                token = self.operator_token(parent, children[0]) if len(children) == 2 else None
                if token is not None and (token.spelling in RELATIONS or token.spelling in ARITHMETIC):
                    operator = token.spelling
            break
        if operator is None:
            return
        start, end = offsets(cursor)
        text = self.text(path)[start:end].decode()
        match = re.fullmatch(r"(0[xX][0-9a-fA-F']+|[0-9']+)([uUlLzZ]*)", text)
        if not match:
            return
        value = int(match.group(1).replace("'", ""), 0)
        shifted = value + 1 if value == 0 else value - 1
        mutated = str(shifted) + match.group(2)
        form = "(" + ON + " ? " + mutated + " : " + text + ")"
        self.add(path, "off_by_one", cursor.extent.start, start, end, cursor.extent.end, [], form, text, mutated)


# ---- rendering ----


def render(text, points, start=0, end=None):
    """The text of [start, end) with every point (sorted, all inside) as its schema switch."""
    end = len(text) if end is None else end
    out = []
    position = start
    i = 0
    while i < len(points):
        point = points[i]
        j = i + 1
        while j < len(points) and points[j].start < point.end:
            j += 1
        inner = points[i + 1:j]
        out.append(text[position:point.start])
        holes = []
        for hole_start, hole_end in point.holes:
            nested = [q for q in inner if hole_start <= q.start and q.end <= hole_end]
            holes.append(render(text, nested, hole_start, hole_end).decode())
        out.append(point.form.replace("{index}", str(point.index)).format(*holes).encode())
        position = point.end
        i = j
    out.append(text[position:end])
    return b"".join(out)


def nestable(points):
    """Sorted so that a point comes before the points inside it; drops points that overlap
    another without fitting into one of its holes (a shape the renderer cannot nest)."""
    ordered = sorted(points, key=lambda p: (p.start, -p.end, p.rank()))
    kept = []
    stack = []
    for point in ordered:
        while stack and stack[-1].end <= point.start:
            stack.pop()
        if stack and (point.end > stack[-1].end or
                      not any(hs <= point.start and point.end <= he for hs, he in stack[-1].holes)):
            continue
        kept.append(point)
        stack.append(point)
    return kept


HEADER = """// Generated by scripts/moqtools/mutants.py from {name}: each mutation point is a schema
// switch (util/schema.hpp). Do not edit; change {name} instead.
#ifndef MOQ_SCHEMATA
#error "a schemata copy of the core in a build without -Dschemata=true: delete this build folder's core/kio and core/model"
#endif
#include "util/schema.hpp"
#line 1 "{name}"
"""


def generated_file(name, text, points):
    return HEADER.format(name=name).encode() + render(text, points)


# ---- parsing ----


def parse_points(root, files, args):
    """Every point of `files` (paths relative to root), from each .cpp among them and one
    unit that includes every header."""
    wanted = {os.path.realpath(os.path.join(root, f)): f for f in files}
    units = [os.path.join(root, f) for f in files if f.endswith(".cpp")]
    headers = [f for f in files if not f.endswith(".cpp")]
    jobs = [(unit, None) for unit in units]
    if headers:
        jobs.append((os.path.join(root, "mutagen_headers.cpp"),
                     "".join(f'#include "{os.path.join(root, h)}"\n' for h in headers)))
    found = {}
    with concurrent.futures.ProcessPoolExecutor(max_workers=min(len(jobs), os.cpu_count() or 1)) as pool:
        for points in pool.map(points_of_unit, [(root, wanted, args, unit, text) for unit, text in jobs]):
            for point in points:
                found.setdefault(point.id, point)
    seen = {}
    for point in sorted(found.values(), key=lambda p: (p.file, p.line, p.column)):
        first = point.key  # as the first of its text: occurrence is still 1 here
        seen[first] = seen.get(first, 0) + 1
        point.occurrence = seen[first]
    return sorted(found.values(), key=lambda p: (p.file, p.start, -p.end, p.rank()))


def points_of_unit(job):
    """The points one translation unit shows (a worker process: libclang objects stay here)."""
    root, wanted, args, unit, text = job
    options = cindex.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD
    unsaved = [(unit, text)] if text is not None else None
    tu = cindex.Index.create().parse(unit, args=["-x", "c++"] + args, unsaved_files=unsaved, options=options)
    errors = [d for d in tu.diagnostics if d.severity >= cindex.Diagnostic.Error]
    if errors:
        raise UsageError(f"libclang cannot parse {unit}: {errors[0]}")
    return list(Finder(tu, root, wanted).run().values())


# ---- the copy ----


def generated_name(name):
    """Where the copy of a core file goes in the output folder: sources flattened beside
    the build's other outputs, headers at their own path (core/kio/x.hpp -> kio/x.hpp)."""
    relative = name.removeprefix("core/")
    if relative.endswith(".cpp"):
        return "schemata_" + relative.replace("/", "_")
    return relative


def schemata_copy(texts, points, sources):
    """{output name: bytes}: every source, and every header with a point in it (a header
    without one stays the original, found after the copy on the include path)."""
    by_file = {}
    for point in points:
        by_file.setdefault(point.file, []).append(point)
    copy = {}
    for name, text in texts.items():
        if name in sources or name in by_file:
            copy[generated_name(name)] = generated_file(name, text, nestable(by_file.get(name, [])))
    return copy


# ---- the compile check ----


class Checker:
    """Compiles the schemata copy with the build's flags and finds the points that break it."""

    def __init__(self, texts, points, sources, command_for, jobs):
        self.texts = texts  # core file -> original bytes
        self.points = points
        self.sources = sources
        self.command_for = command_for  # (unit path, folder) -> (argv, cwd)
        self.jobs = jobs
        self.compiles = 0

    def units(self, copy):
        """The sources, and one unit that includes every copied header."""
        return [generated_name(s) for s in self.sources] + ["mutagen_headers.cpp"]

    def compile(self, enabled, units=None):
        """{unit: compiler output} of every unit that fails; {} when all compile."""
        self.compiles += 1
        copy = schemata_copy(self.texts, [p for p in self.points if p.index in enabled], self.sources)
        copy["mutagen_headers.cpp"] = "".join(f'#include "{name}"\n' for name in sorted(copy)
                                              if name.endswith(".hpp")).encode()
        with tempfile.TemporaryDirectory(prefix="mutagen-") as folder:
            for name, data in copy.items():
                os.makedirs(os.path.dirname(os.path.join(folder, name)), exist_ok=True)
                with open(os.path.join(folder, name), "wb") as out:
                    out.write(data)

            def one(unit):
                argv, cwd = self.command_for(os.path.join(folder, unit), folder)
                out = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False)
                return unit, out.returncode, out.stderr

            failures = {}
            with concurrent.futures.ThreadPoolExecutor(max_workers=self.jobs) as pool:
                for unit, status, stderr in pool.map(one, units or self.units(copy)):
                    if status != 0:
                        failures[unit] = stderr
            return failures

    def blame(self, stderr):
        """The points on the lines the compiler names (the copy keeps the original's lines)."""
        stderr = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", stderr)
        places = set()
        for match in re.finditer(r"(?:^|\s)((?:\.\./)*[\w/.-]+\.(?:cpp|hpp)):(\d+):", stderr, re.M):
            places.add((re.sub(r"^(\.\./)+", "", match.group(1)), int(match.group(2))))
        return {p.index for p in self.points if any(f == p.file and p.line <= line <= p.end_line
                                                    for f, line in places)}

    def check(self):
        """Leaves out the points that break compilation; returns {index: first error}."""
        enabled = {p.index for p in self.points}
        broken = {}
        failures = self.compile(enabled)
        while failures:
            units = sorted(failures)
            suspects = set()
            for stderr in failures.values():
                suspects |= self.blame(stderr) & enabled
            base = enabled - suspects
            if not suspects or self.compile(base, units):
                suspects, base = set(enabled), set()
                if self.compile(base, units):
                    raise UsageError("the core does not compile without any mutant:\n" +
                                     next(iter(self.compile(base, units).values()))[-2000:])
            culprits = self.bisect(sorted(suspects), base, units)
            if not culprits:
                raise UsageError("the schemata copy does not compile, and no point alone is to blame")
            for index in culprits:
                messages = self.compile(base | {index}, units)
                broken[index] = first_error(next(iter(messages.values()), ""))
            enabled -= set(culprits)
            failures = self.compile(enabled)
        return broken

    def bisect(self, suspects, base, units):
        """The suspects that break compilation on top of base (which compiles)."""
        if not suspects or not self.compile(base | set(suspects), units):
            return []
        if len(suspects) == 1:
            return list(suspects)
        half = len(suspects) // 2
        first = self.bisect(suspects[:half], base, units)
        good = base | (set(suspects[:half]) - set(first))
        return first + self.bisect(suspects[half:], good, units)


def first_error(stderr):
    stderr = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", stderr)
    for line in stderr.splitlines():
        if ": error:" in line:
            return line.split(": error:", 1)[1].strip()[:300]
    return stderr.strip().splitlines()[-1][:300] if stderr.strip() else "does not compile"


# ---- outputs ----


def table_source(points):
    lines = ["// Generated by scripts/moqtools/mutants.py: the generated mutants of the schemata copy,",
             "// in the order of their schema index. Do not edit.",
             '#include <iterator>', "", '#include "util/mutation.hpp"', "", "namespace {", ""]
    compiled = [p for p in points if p.status == "compiled"]
    if compiled:
        lines.append("constexpr moq::mutation::GeneratedMutant generated[] = {")
        for point in compiled:
            fields = [point.id, point.file, point.line, point.column, point.operator, point.original,
                      point.replacement]
            lines.append("    {" + ", ".join(json.dumps(f) for f in fields) + "},")
        lines += ["};", "",
                  "const int registered = moq::mutation::add_generated_mutants(generated, std::size(generated));",
                  ""]
    lines += ["}  // namespace", ""]
    return "\n".join(lines)


def mutants_json(points):
    return json.dumps({"format": "moqsim-schemata", "version": 1, "mutants": [
        {"id": p.id, "key": p.key, "index": p.index, "file": p.file, "line": p.line, "column": p.column,
         "end_line": p.end_line, "end_column": p.end_column, "operator": p.operator, "original": p.original,
         "replacement": p.replacement, "status": p.status, **({"error": p.error} if p.error else {})}
        for p in points]}, indent=1) + "\n"


def write_if_changed(path, data):
    """Writes atomically, and only when the content changed (so includers do not rebuild)."""
    if isinstance(data, str):
        data = data.encode()
    try:
        with open(path, "rb") as existing:
            if existing.read() == data:
                return
    except OSError:
        pass
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    temp = f"{path}.{os.getpid()}.tmp"
    with open(temp, "wb") as out:
        out.write(data)
    os.replace(temp, path)


def oracle_headers(root):
    """The core headers the reference models include: mutating them would change the judge."""
    shared = set()
    folder = os.path.join(root, "oracle")
    if not os.path.isdir(folder):
        return shared
    for name in os.listdir(folder):
        if name.endswith((".cpp", ".hpp")):
            with open(os.path.join(folder, name), encoding="utf-8") as source:
                for match in re.finditer(r'#include\s+"((?:kio|model)/[^"]+)"', source.read()):
                    shared.add("core/" + match.group(1))
    return shared


def core_files(root):
    files = []
    for folder in MUTATED_DIRS:
        for name in sorted(os.listdir(os.path.join(root, "core", folder))):
            if name.endswith((".cpp", ".hpp")):
                files.append(f"core/{folder}/{name}")
    return files


def load_compile_commands(build_root):
    path = os.path.join(build_root, "compile_commands.json")
    try:
        with open(path, encoding="utf-8") as source:
            return json.load(source)
    except (OSError, ValueError) as error:
        raise UsageError(f"cannot read {path}: {error}") from error


def core_command(commands, outdir):
    """The compile command of one source of the schemata library (they all share flags)."""
    for entry in commands:
        path = os.path.realpath(os.path.join(entry["directory"], entry["file"]))
        if os.path.dirname(path) == outdir and os.path.basename(path).startswith("schemata_"):
            return entry
    raise UsageError(f"compile_commands.json has no schemata source in {outdir}")


# Programs a build runs the compiler through, named before it in a compile command.
LAUNCHERS = ("ccache", "sccache", "distcc")


def command_words(entry):
    return shlex.split(entry["command"]) if "command" in entry else list(entry["arguments"])


def syntax_check_command(entry, unit, folder, outdir):
    """entry's compiler and flags compiling `unit` for syntax only, headers from `folder`
    first and never from outdir (which may hold the previous copy)."""
    words = command_words(entry)
    # The compiler, after the launcher Meson puts before it when it finds one (ccache).
    compiler = 1
    while compiler < len(words) and os.path.basename(words[compiler - 1]) in LAUNCHERS:
        compiler += 1
    argv = words[:compiler] + ["-I" + folder]
    skip = False
    for word in words[compiler:]:
        if skip:
            skip = False
            continue
        if word in ("-o", "-MQ", "-MF", "-MT", "-c"):
            skip = True
            continue
        if word in ("-MD", "-MMD", entry["file"]):
            continue
        if word.startswith("-I") and os.path.realpath(os.path.join(entry["directory"], word[2:])) == outdir:
            continue
        argv.append(word)
    return argv + ["-fdiagnostics-color=never", "-fsyntax-only", unit], entry["directory"]


def libclang_flags(entry, root):
    """The -D and -std flags of the build, and the original sources' include folder."""
    flags = [w for w in command_words(entry) if w.startswith(("-D", "-std="))]
    return flags + ["-I" + os.path.join(root, "core")]


def remove_stale(outdir, written):
    """Copies of headers an earlier run wrote that this run does not (no point left in them)."""
    for folder in MUTATED_DIRS:
        for name in sorted(os.listdir(os.path.join(outdir, folder))) if os.path.isdir(
                os.path.join(outdir, folder)) else []:
            relative = f"{folder}/{name}"
            if name.endswith(".hpp") and relative not in written:
                os.remove(os.path.join(outdir, relative))


def generate(root, files, mutated, sources, flags, check_command, outdir, jobs=1, check=True):
    """Writes the schemata copy of `files` (relative to root) into outdir, with points found
    in `mutated` (parsed with libclang `flags`); compiles `sources` with check_command(unit,
    folder) -> (argv, cwd) first and leaves out the points that break it. Returns the points."""
    points = parse_points(root, mutated, flags)
    for number, point in enumerate(points):
        point.index = number
    texts = {}
    for name in files:
        with open(os.path.join(root, name), "rb") as source:
            texts[name] = source.read()
    if check:
        checker = Checker(texts, points, sources, check_command, jobs)
        broken = checker.check()
        for point in points:
            if point.index in broken:
                point.status = "CompileError"
                point.error = broken[point.index]
        print(f"mutagen: {len(points)} points, {len(broken)} left out as CompileError "
              f"({checker.compiles} compiles)")

    compiled = [p for p in points if p.status == "compiled"]
    for point in points:
        point.index = -1
    for number, point in enumerate(compiled):
        point.index = number
    copy = schemata_copy(texts, compiled, sources)
    for name, data in copy.items():
        write_if_changed(os.path.join(outdir, name), data)
    remove_stale(outdir, set(copy))
    write_if_changed(os.path.join(outdir, "schemata_table.cpp"), table_source(points))
    write_if_changed(os.path.join(outdir, "schemata_mutants.json"), mutants_json(points))
    write_if_changed(os.path.join(outdir, "schemata.hpp"),
                     f"// Generated by scripts/moqtools/mutants.py: {len(compiled)} mutants in the schemata copy.\n"
                     "#pragma once\n")
    return points


def build(args):
    """The schemata copy of core/kio and core/model for a Meson build folder."""
    root = os.path.realpath(args.root)
    outdir = os.path.realpath(args.outdir)
    entry = core_command(load_compile_commands(args.build_root), outdir)
    files = core_files(root)
    sources = ["core/" + s for s in args.sources]
    missing = [s for s in sources if s not in files]
    if missing:
        raise UsageError(f"not a source of core/kio or core/model: {missing[0]}")
    shared = oracle_headers(root)
    generate(root, files, [f for f in files if f not in shared], sources, libclang_flags(entry, root),
             lambda unit, folder: syntax_check_command(entry, unit, folder, outdir), outdir, args.jobs,
             not args.no_check)
    if args.depfile:
        inputs = [os.path.join(root, f) for f in files] + [os.path.abspath(__file__)] + [
            os.path.join(root, "oracle", n) for n in sorted(os.listdir(os.path.join(root, "oracle")))
            if n.endswith((".cpp", ".hpp"))]
        write_if_changed(args.depfile, escape_make(args.depfile_target or args.depfile) + ": " +
                         " \\\n ".join(escape_make(i) for i in inputs) + "\n")


# The flags of a mutants build (meson.build: -Dschemata=true) that decide which points
# exist: the language standard and the switches the sources test with #if.
LIST_FLAGS = ["-std=c++20", "-DMOQ_MUTANTS=1", "-DMOQ_SCHEMATA=1"]


def generated_points(root):
    """Every generated mutant of core/kio and core/model, CompileError ones included (they
    exist all the same), found by parsing alone: no build, no compile check."""
    root = os.path.realpath(root)
    files = core_files(root)
    shared = oracle_headers(root)
    flags = LIST_FLAGS + ["-I" + os.path.join(root, "core")]
    return parse_points(root, [f for f in files if f not in shared], flags)


def generated_ids(root):
    return [p.id for p in generated_points(root)]


def escape_make(path):
    return path.replace(" ", "\\ ")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    make = sub.add_parser("build", help="write the schemata copy of the core into a build folder")
    make.add_argument("--root", required=True, help="the project's source root")
    make.add_argument("--build-root", required=True, help="the build folder (compile_commands.json)")
    make.add_argument("--outdir", required=True, help="where the copy goes (the build folder's core/)")
    make.add_argument("--sources", nargs="+", required=True, help="the core's .cpp files, relative to core/")
    make.add_argument("--depfile")
    make.add_argument("--depfile-target", help="the output the depfile names (the first one)")
    make.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    make.add_argument("--no-check", action="store_true", help="skip the compile check")
    ids = sub.add_parser("ids", help="print every generated mutant's id, one a line, without a build "
                         "(--keys: its id and its key, the form scripts/equivalent-mutants.txt lists)")
    ids.add_argument("--keys", action="store_true")
    ids.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."),
                     help="the project's source root (default: this script's repository)")
    args = parser.parse_args()
    try:
        if args.command == "ids":
            points = generated_points(args.root)
            print("\n".join(f"{p.id}  {p.key}" if args.keys else p.id for p in points))
        else:
            build(args)
    except UsageError as error:
        print(f"mutagen: {error}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
