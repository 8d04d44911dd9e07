"""Parsing, checking and evaluating EL expressions such as `now(0,-60)`,
`formatTime(dateOffset(instanceTime(), -1, 'DAY'), 'yyyy-MMM-dd')` or `${lastMonth(0,0,0)}`.

An expression is parsed and type-checked once (`parse_expression`, cached), then evaluated for many
nominal times. Integer arguments may use + - * and parentheses (`now(-24*7, 0)`). A time argument may be
a literal time in quotes, as Falcon's ExpressionHelper takes it (`formatTime("2016-02-01T10:59Z", "yyyy")`):
written yyyy-MM-ddTHH:mmZ in UTC, Falcon's one mask, and checked when the expression is parsed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import lru_cache
from typing import NoReturn

from toolkit.core.el.context import ELContext
from toolkit.core.el.functions import FUNCTIONS, INT, TEXT, TIME, check_offset_unit, check_week_day
from toolkit.core.el.java_format import format_java
from toolkit.core.el.timestamps import parse_timestamp
from toolkit.errors import UsageError

_TOKEN = re.compile(
    r"\s*(?:(?P<number>[0-9]+)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<text>'[^']*'|\"[^\"]*\")|(?P<op>[-+*(),]))"
)
Value = datetime | str | int | None
# Far beyond any real expression; keeps the recursive parser, and the walks over what it parses (type checks,
# evaluation, lint rules), off Python's recursion limit.
_MAX_DEPTH = 50
_TOO_DEEP = f"it nests more than {_MAX_DEPTH} calls, parentheses, operators or signs deep"


@dataclass(frozen=True)
class Number:
    value: int


@dataclass(frozen=True)
class Text:
    value: str


@dataclass(frozen=True)
class Call:
    name: str
    args: tuple[Node, ...]


@dataclass(frozen=True)
class Arithmetic:
    op: str
    left: Node
    right: Node


Node = Number | Text | Call | Arithmetic


def _shown(text: str) -> str:
    """The expression as messages quote it; a very long one is cut."""
    return repr(text) if len(text) <= 80 else repr(text[:77] + "...")


class _Parser:
    """Recursive descent over the token list; every failure names the expression and the spot."""

    def __init__(self, source: str, body: str) -> None:
        self.source = source
        self.tokens: list[tuple[str, str]] = []
        position = 0
        while position < len(body):
            if body[position:].strip() == "":
                break
            match = _TOKEN.match(body, position)
            if match is None:
                self.fail(f"unexpected {body[position:].strip()[0]!r}")
            kind = match.lastgroup or ""
            self.tokens.append((kind, match.group(kind)))
            position = match.end()
        self.index = 0
        self.depth = 0

    def fail(self, reason: str) -> NoReturn:
        raise UsageError(f"Invalid EL expression {_shown(self.source)}: {reason}.")

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.index] if self.index < len(self.tokens) else None

    def take(self, op: str | None = None) -> tuple[str, str]:
        token = self.peek()
        if token is None:
            self.fail("it ends too early" if op is None else f"{op!r} expected at the end")
        if op is not None and token != ("op", op):
            self.fail(f"{op!r} expected, found {token[1]!r}")
        self.index += 1
        return token

    def parse(self) -> Node:
        if not self.tokens:
            self.fail("it is empty")
        node = self.sum()
        extra = self.peek()
        if extra is not None:
            self.fail(f"unexpected {extra[1]!r} after the expression")
        if _height(node) > _MAX_DEPTH:  # a chain (`1+1+1` is `(1+1)+1`) nests without nesting the parser
            self.fail(_TOO_DEEP)
        return node

    def sum(self) -> Node:
        node = self.product()
        while self.peek() in (("op", "+"), ("op", "-")):
            node = Arithmetic(self.take()[1], node, self.product())
        return node

    def product(self) -> Node:
        node = self.unary()
        while self.peek() == ("op", "*"):
            self.take()
            node = Arithmetic("*", node, self.unary())
        return node

    def unary(self) -> Node:
        """Every nesting (a call, parentheses, a sign) passes here: the one place that bounds depth."""
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            self.fail(_TOO_DEEP)
        try:
            return self._unary()
        finally:
            self.depth -= 1

    def _unary(self) -> Node:
        if self.peek() in (("op", "-"), ("op", "+")):
            sign = self.take()[1]
            operand = self.unary()
            return Arithmetic(sign, Number(0), operand)
        return self.primary()

    def primary(self) -> Node:
        kind, value = self.take()
        if kind == "number":
            return Number(int(value))
        if kind == "text":
            return Text(value[1:-1])
        if (kind, value) == ("op", "("):
            node = self.sum()
            self.take(")")
            return node
        if kind == "name":
            self.take("(")
            args: list[Node] = []
            if self.peek() != ("op", ")"):
                args.append(self.sum())
                while self.peek() == ("op", ","):
                    self.take()
                    args.append(self.sum())
            self.take(")")
            return Call(value, tuple(args))
        self.fail(f"unexpected {value!r}")


def _height(node: Node) -> int:
    """How many levels of nodes the tree has, counted level by level (without the recursion it guards)."""
    height, level = 0, [node]
    while level:
        height += 1
        level = [child for item in level
                 for child in (item.args if isinstance(item, Call) else
                               (item.left, item.right) if isinstance(item, Arithmetic) else ())]
    return height


def _type_of(node: Node, source: str) -> str:
    """The result type of a node, checking every call's arity and argument types on the way."""
    if isinstance(node, Number):
        return INT
    if isinstance(node, Text):
        return TEXT
    if isinstance(node, Arithmetic):
        for side in (node.left, node.right):
            if _type_of(side, source) != INT:
                raise UsageError(f"Invalid EL expression {_shown(source)}: {node.op} works on whole numbers only.")
        return INT
    function = FUNCTIONS.get(node.name)
    if function is None:
        raise UsageError(
            f"Invalid EL expression {_shown(source)}: unknown function {node.name}(); the functions are "
            + ", ".join(f.signature for f in FUNCTIONS.values()) + "."
        )
    if len(node.args) != len(function.params):
        raise UsageError(
            f"Invalid EL expression {_shown(source)}: {function.signature} takes {len(function.params)} "
            f"argument{'s' if len(function.params) != 1 else ''}, {len(node.args)} given."
        )
    for arg, (name, wanted) in zip(node.args, function.params, strict=True):
        if isinstance(arg, Text) and wanted == TIME:
            _check_literal_time(arg.value, f"argument {name} of {function.signature}", source)
            continue
        if _type_of(arg, source) != wanted:
            raise UsageError(
                f"Invalid EL expression {_shown(source)}: argument {name} of {function.signature} must be "
                + {INT: "a whole number", TEXT: "a quoted text", TIME: "a time such as instanceTime()"}[wanted] + "."
            )
        if isinstance(arg, Text) and name in _TEXT_CHECKS:
            try:
                _TEXT_CHECKS[name](arg.value)
            except UsageError as err:
                reason = str(err)
                raise UsageError(f"Invalid EL expression {_shown(source)}: {reason[0].lower()}{reason[1:]}") from None
    return function.returns


def _check_literal_time(value: str, what: str, source: str) -> None:
    """A quoted time must be one: refused at parse time, naming it, so nothing fails when it runs."""
    try:
        parse_timestamp(value)
    except UsageError:
        raise UsageError(
            f"Invalid EL expression {_shown(source)}: {what} is the text {value!r}, which is no time: write a time "
            "as yyyy-MM-ddTHH:mmZ in UTC (e.g. '2016-02-01T10:59Z') or an expression such as instanceTime()."
        ) from None


# Literal text arguments are checked when the expression is parsed, so the linter sees a bad week day,
# unit or pattern without evaluating anything.
_TEXT_CHECKS = {
    "day": check_week_day,
    "unit": check_offset_unit,
    "pattern": lambda pattern: format_java(datetime(2000, 1, 1, tzinfo=timezone.utc), pattern),
}


def _functions_in(node: Node) -> frozenset[str]:
    if isinstance(node, Call):
        return frozenset({node.name}).union(*(_functions_in(arg) for arg in node.args))
    if isinstance(node, Arithmetic):
        return _functions_in(node.left) | _functions_in(node.right)
    return frozenset()


def _evaluate(node: Node, ctx: ELContext) -> Value:
    if isinstance(node, (Number, Text)):
        return node.value
    if isinstance(node, Arithmetic):
        left, right = _evaluate(node.left, ctx), _evaluate(node.right, ctx)
        assert isinstance(left, int) and isinstance(right, int)  # _type_of lets + - * through on INT only
        return left + right if node.op == "+" else left - right if node.op == "-" else left * right
    function = FUNCTIONS[node.name]
    args = [parse_timestamp(arg.value) if isinstance(arg, Text) and wanted == TIME else _evaluate(arg, ctx)
            for arg, (_, wanted) in zip(node.args, function.params, strict=True)]
    if any(arg is None for arg in args):
        return None  # a time that is no instance stays no instance
    return function.impl(ctx, *args)


@dataclass(frozen=True)
class Expression:
    """A parsed, type-checked EL expression; `type` is "time", "text" or "int"."""

    text: str
    node: Node
    type: str
    functions: frozenset[str]

    @property
    def needs_available(self) -> bool:
        """True when it uses latest() or future(), which pick among available instances."""
        return any(FUNCTIONS[name].needs_available for name in self.functions)

    def evaluate(self, ctx: ELContext) -> Value:
        try:
            return _evaluate(self.node, ctx)
        except (OverflowError, ValueError):
            raise UsageError(
                f"EL expression {self.text!r} at {ctx.nominal:%Y-%m-%dT%H:%MZ} lies outside the years 1 to 9999."
            ) from None

    def evaluate_time(self, ctx: ELContext) -> datetime | None:
        """Evaluate an expression that must give a time (an input's start or end, an output instance)."""
        if self.type != TIME:
            raise UsageError(f"EL expression {self.text!r} gives a {self.type}, not a time such as now(0,0).")
        return self.evaluate(ctx)  # type: ignore[return-value]


def _strip_wrapper(text: str) -> str:
    body = text.strip()
    if body.startswith("${") and body.endswith("}"):
        return body[2:-1]
    return body


@lru_cache(maxsize=4096)
def parse_expression(text: str) -> Expression:
    """Parse and check `text` (optionally wrapped in `${...}`); raises UsageError naming the problem."""
    if not isinstance(text, str):
        raise UsageError(f"Invalid EL expression {text!r}: it must be text such as now(0,0).")
    node = _Parser(text, _strip_wrapper(text)).parse()
    return Expression(text, node, _type_of(node, text), _functions_in(node))
