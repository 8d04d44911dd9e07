"""PR005: every EL expression of the process parses, type-checks and gives a time.

Why:
Input `start` and `end`, output `instance` and a batch consumer's `trigger.cut` are evaluated at every run: an
expression that does not parse or does not give a time would fail only then. Constant arguments of latest() and
future() are checked too (latest looks back, future forward: latest(n) with n <= 0, future(n, limit) with n >= 0
and limit >= 1).

Anti-pattern:

    inputs: [{name: clicks, feed: clicks, start: "now(0,-1", end: latest(1)}]

Best practice:

    inputs: [{name: clicks, feed: clicks, start: "now(0,-1)", end: latest(0)}]
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules.process._support import EXAMPLES, where
from toolkit.core.el.expressions import Arithmetic, Call, Expression, Node, Number
from toolkit.core.el.functions import TIME
from toolkit.core.entities.document import FieldPath
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Process
from toolkit.errors import UsageError


@register
class ValidExpressions(EntityRule[Process]):
    code = "PR005"
    summary = ("Input start and end, output instance and trigger cut are valid EL expressions that give a time "
               "(latest(n) with n <= 0, future(n, limit) with n >= 0 and limit >= 1).")
    kind = Kind.PROCESS

    def check_entity(self, entity: Process, ctx: LintContext) -> Iterator[Finding]:
        for index, item in enumerate(entity.inputs):
            for key in ("start", "end"):
                yield from self._check(entity, ctx, ("inputs", index, key), getattr(item, key))
        for index, output in enumerate(entity.outputs):
            yield from self._check(entity, ctx, ("outputs", index, "instance"), output.instance)
        yield from self._check(entity, ctx, ("trigger", "cut"), entity.trigger.cut)

    def _check(self, entity: Process, ctx: LintContext, path: FieldPath, text: str | None) -> Iterator[Finding]:
        if text is None:  # a batch consumer's input or output, or no cut
            return
        field = where(path)
        parsed = ctx.expression(text)
        if isinstance(parsed, UsageError):
            reason = _reason(str(parsed), text)
            yield Finding(entity, f"{field} {text!r} is not a valid EL expression: {reason}; write a time "
                          f"expression such as {EXAMPLES}.", path)
        elif parsed.type != TIME:
            yield Finding(entity, f"{field} {text!r} gives a {parsed.type}, not a time; write a time expression "
                          f"such as {EXAMPLES} (formatTime() is for paths and properties).", path)
        else:
            problem = _selection_problem(parsed)
            if problem:
                yield Finding(entity, f"{field} {text!r}: {problem}", path)


def _reason(message: str, text: str) -> str:
    """The parser's reason without its `Invalid EL expression '...': ` prefix (the message names the value)."""
    prefix = f"Invalid EL expression {text!r}: "
    reason = message[len(prefix):] if message.startswith(prefix) else message
    return reason.rstrip(".")


def _constant(node: Node) -> int | None:
    """The value of a whole-number argument made of literals, or None when it is not constant."""
    if isinstance(node, Number):
        return node.value
    if isinstance(node, Arithmetic):
        left, right = _constant(node.left), _constant(node.right)
        if left is None or right is None:
            return None
        return left + right if node.op == "+" else left - right if node.op == "-" else left * right
    return None


def _calls(node: Node) -> Iterator[Call]:
    if isinstance(node, Call):
        yield node
        for arg in node.args:
            yield from _calls(arg)
    elif isinstance(node, Arithmetic):
        yield from _calls(node.left)
        yield from _calls(node.right)


def _selection_problem(expression: Expression) -> str | None:
    for call in _calls(expression.node):
        values = [_constant(arg) for arg in call.args]
        if call.name == "latest" and values[0] is not None and values[0] > 0:
            return (f"latest({values[0]}) looks forward; latest(n) takes 0 (the newest available instance) or a "
                    "negative n (older ones): use future(n, limit) to look forward.")
        if call.name == "future":
            n, limit = values
            if n is not None and n < 0:
                return (f"future({n}, ...) looks back; future(n, limit) takes n >= 0: use latest(n) with n <= 0 "
                        "to look back.")
            if limit is not None and limit < 1:
                return f"future(..., {limit}) has no instance to pick from; give a limit of at least 1 instance."
    return None
