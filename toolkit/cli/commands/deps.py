"""`toolkit deps ENTITY`: what an entity depends on and what depends on it, transitively, as a tree."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated

import typer

from toolkit.core.entities.kinds import EntityRef, Kind
from toolkit.core.entities.repo import ConfigRepo
from toolkit.errors import UsageError


def _resolve(repo: ConfigRepo, text: str) -> EntityRef:
    """`feed/clicks` or a bare name that exactly one kind has."""
    if "/" in text:
        kind, _, name = text.partition("/")
        if kind not in {k.value for k in Kind}:
            raise UsageError(f"Unknown kind {kind!r} in {text!r}: write cluster/NAME, feed/NAME, "
                             "process/NAME, datasource/NAME or mirror/NAME.")
        ref = EntityRef(Kind(kind), name)
        repo.get(ref)
        return ref
    found = [EntityRef(kind, text) for kind in Kind if repo.find(EntityRef(kind, text)) is not None]
    if not found:
        raise UsageError(f"No cluster, feed, process, datasource or mirror is named {text!r} in repo "
                         f"{repo.display}.")
    if len(found) > 1:
        raise UsageError(f"{text!r} names a {' and a '.join(r.kind.value for r in found)}: write it as "
                         f"{' or '.join(str(r) for r in found)}.")
    return found[0]


def _tree(ref: EntityRef, step: Callable[[EntityRef], tuple[EntityRef, ...]], repo: ConfigRepo,
          depth: int = 1, path: tuple[EntityRef, ...] = ()) -> Iterator[str]:
    for child in step(ref):
        missing = "" if repo.find(child) is not None else "  (missing)"
        if child in path or child == ref:
            yield f"{'  ' * depth}{child}  (cycle)"
            continue
        yield f"{'  ' * depth}{child}{missing}"
        yield from _tree(child, step, repo, depth + 1, (*path, ref))


def deps_command(
    entity: Annotated[str, typer.Argument(help="An entity name, or KIND/NAME when two kinds share the name.")],
    repo: Annotated[Path, typer.Option("--repo", help="The config repo.")] = Path("."),
) -> None:
    """Print what ENTITY depends on and what depends on it, transitively, as two indented trees.

    A process depends on its clusters and on the feeds it reads and writes; a feed on its clusters and on the
    datasources it imports from or exports to; a mirror on the cluster it runs on, its source and its target.
    """
    config = ConfigRepo.load(repo)
    ref = _resolve(config, entity)
    typer.echo(str(ref))
    typer.echo("  depends on:")
    typer.echo("\n".join(_tree(ref, config.dependencies, config, depth=2)) or "    (nothing)")
    typer.echo("  used by:")
    typer.echo("\n".join(_tree(ref, config.dependents, config, depth=2)) or "    (nothing)")
