"""One lifecycle around an action's call on an instance of a feed, so that no action can miss a step of it.

The call is a typed record checked where it is built (`FeedCall.of`: the instance on the feed's grid, exit 2, and
inside its validity, exit 4, before any JVM starts) that computes the definition it runs once. Around the action's
own plan, apply and record steps, `feed_lifecycle` then takes the safemode and suspension switches, the lease, the
failure notice to the feed's `notification` (an error of exit 1, or one nobody foresaw: a wait, a skip or a block
is no failure), and hands the action the two things that must carry the definition: its lineage runs
(`Lifecycle.run`) and its dataset events (`Lifecycle.published`).

Compaction, ingest, retention, replication (an instance at a time), the database import and export and the Hive
export go through it. The process runner goes through `process_lifecycle`, the same steps for a `ProcessCall`
(switches, the instance's hold, the lease with `toolkit kill` read at each renewal, the failure notice), a batch
consumer's run through `batch_lifecycle` (the failure notice and the switches; its queue's claim is its lease),
and each keeps its retries and the notices of its attempts (docs/architecture.md, "One lifecycle"). A dry run
(retention's) stops at `feed_checks`: the switches and the failure notice, no lease. An entry module that does
work that can fail before the core's lifecycle starts (connecting a table feed's metastore) wraps it in
`failures_told` too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.model import Cluster, Feed, Process
from toolkit.core.entities.provenance import Provenance, provenance
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.core.instances.grids import require_in_validity
from toolkit.core.ledger.locks import LeaseDetails
from toolkit.core.ledger.records import PublicationFacts
from toolkit.core.ledger.run_locks import HeldLease, holding
from toolkit.core.ledger.switches import require_running_allowed
from toolkit.errors import TimedOutError, ToolkitError
from toolkit.services.openlineage.facts import RunSubject
from toolkit.services.runtime.feed_notices import FeedFailure, notify_feed_failure
from toolkit.services.runtime.run_context import RunContext

if TYPE_CHECKING:
    from toolkit.core.ledger.locks import LeaseLock
    from toolkit.core.ledger.records import DatasetEvent
    from toolkit.core.ledger.store import Ledger
    from toolkit.services.notifications.notifier import Notifier
    from toolkit.services.openlineage.run import RunLineage


@dataclass(frozen=True)
class ActionKind:
    """What an action is, fixed in its package: `name` in the status line and notices ("compaction"), `script`
    its entrypoint, `entrypoints/<script>.py`, which a notice's rerun command calls ("compact"), `job` the prefix
    of its lineage jobs ("compact": `compact.<feed>`), `producer` the producer its dataset events name.
    `on_instance`: the call's time is an instance of the feed (on its grid, inside its validity, the parent of its
    lineage run); False for an action whose time is its own cadence's (retention counts its limit back from it)."""

    name: str
    script: str
    job: str
    producer: str
    on_instance: bool = True


@dataclass(frozen=True)
class FeedCall:
    """One call of an action on the instance `nominal` of `feed` on `cluster`, with the definition it runs and the
    arguments its rerun needs besides the instance (`rerun_arguments`: a Hive export's `--to DIR`). Built only
    inside the feed's validity there, on its grid (checked here, whoever builds it), unless the action's time is
    no instance (`ActionKind.on_instance`)."""

    kind: ActionKind
    repo: ConfigRepo
    feed: Feed
    cluster: Cluster
    nominal: datetime
    definition: Provenance
    rerun_arguments: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind.on_instance:
            require_in_validity(self.feed, self.cluster.name, self.nominal)

    @classmethod
    def of(cls, kind: ActionKind, repo: ConfigRepo, feed: Feed, cluster: Cluster, t: datetime,
           rerun_arguments: tuple[str, ...] = ()) -> FeedCall:
        """The call, its definition hashed once (core/entities/provenance.py) for every run and event it records."""
        return cls(kind, repo, feed, cluster, t, provenance(feed, Path(repo.root), repo.revision), rerun_arguments)

    @property
    def instance(self) -> str:
        return format_timestamp(self.nominal)


@dataclass(frozen=True)
class ProcessCall:
    """One call of the process runner on the instance `nominal` of `process` on `cluster`, with the definition it
    runs (hashed once, by the runner, for every record and event of its instances). Built only inside the
    process's validity there (checked here, whoever builds it: exit 4 outside, 2 off its grid)."""

    repo: ConfigRepo
    process: Process
    cluster: Cluster
    nominal: datetime
    definition: Provenance

    def __post_init__(self) -> None:
        require_in_validity(self.process, self.cluster.name, self.nominal)

    @property
    def instance(self) -> str:
        return format_timestamp(self.nominal)


@dataclass(frozen=True)
class InstanceCall:
    """A call about one feed instance (`instance`), the base of an action's own call record, which adds what the
    action needs besides (an import's policy and datasource)."""

    instance: FeedCall

    @property
    def repo(self) -> ConfigRepo:
        return self.instance.repo

    @property
    def feed(self) -> Feed:
        return self.instance.feed

    @property
    def cluster(self) -> Cluster:
        return self.instance.cluster

    @property
    def time(self) -> datetime:
        return self.instance.nominal


def is_failure(err: BaseException) -> bool:
    """An error to tell the entity's `notification` about: one of exit 1, or one nobody foresaw. A usage error
    (2), a wait (3), a skip (4) or a block (5) is no failure."""
    return not isinstance(err, ToolkitError) or err.exit_code == 1


@dataclass(frozen=True)
class Lifecycle:
    """What the action's steps work with inside `feed_lifecycle`: the call, its run context, the cluster's ledger
    and the lease it holds."""

    call: FeedCall
    context: RunContext
    ledger: Ledger
    lease: HeldLease

    def run(self, **facts: Any) -> RunLineage:
        """A lineage run of this call (job `<kind.job>.<feed>`, the instance its parent), carrying the definition;
        `facts` as `Lineage.run` takes them (attempt, sql, extra). Start it with `runtime.lineage.watched`."""
        call = self.call
        subject = RunSubject(call.kind.job, call.feed.name, nominal=call.nominal,
                             instance=call.instance if call.kind.on_instance else None)
        return self.context.lineage.run(subject, definition=call.definition, **facts)

    def published(self, location: str, fingerprint: Fingerprint | None, *, unless_recorded: bool = False,
                  run_id: str | None = None, at: datetime | None = None,
                  producer: str | None = None) -> DatasetEvent | None:
        """The instance's dataset event (`published`, or `replaced` when it was visible already), carrying the
        definition; see `Ledger.record_publication` for `unless_recorded`. `run_id` and `at`: the run that made
        it visible and its instance, when they are not this call's (a killed run's publication it finishes);
        `producer`: the kind's, unless the action names more (a replication, its sources)."""
        call = self.call
        facts = PublicationFacts(call.feed.name, call.cluster.name, call.nominal if at is None else at,
                                 producer=producer or call.kind.producer,
                                 run_id=self.context.run_id if run_id is None else run_id, location=location,
                                 fingerprint=fingerprint, definition=call.definition)
        return self.ledger.record_publication(facts, unless_recorded=unless_recorded)

    def failed(self, error: str, *, timed_out: bool) -> None:
        """Tell the feed's `notification` of a failure the action ends with rather than raises (a replication's
        instance whose source did not come by the feed's timeout: the instances after it go on)."""
        _tell(self.call, self.context.notifier, self.context.run_id, error, timed_out=timed_out)


def _tell(call: FeedCall, notifier: Notifier | None, run_id: str, error: str, *, timed_out: bool) -> None:
    if notifier is not None:
        notify_feed_failure(notifier, FeedFailure(call.repo, call.feed, call.kind.name, call.nominal, run_id, error,
                                                  timed_out=timed_out, script=call.kind.script,
                                                  more=call.rerun_arguments))


_TOLD = "_feed_toolkit_told"  # set on an error once a notice told it


def was_told(err: BaseException) -> bool:
    """Whether `failures_told` told the feed's `notification` about `err` already (for a frame that tells the
    failures of a call of another shape, a replication's window: it tells the others)."""
    return bool(getattr(err, _TOLD, False))


@contextmanager
def failures_told(call: FeedCall, notifier: Notifier | None, run_id: str) -> Iterator[None]:
    """A failure (`is_failure`) of the body told to the feed's `notification` through `notifier` (TIMEDOUT when
    what it waited for did not come by the feed's timeout), then raised. A failure told already (by an inner
    `failures_told`) is not told twice: the error is marked (`was_told`)."""
    if notifier is None:
        yield
        return
    with told_on_failure(lambda error, timed_out: _tell(call, notifier, run_id, error, timed_out=timed_out)):
        yield


@contextmanager
def told_on_failure(tell: Callable[[str, bool], None]) -> Iterator[None]:
    """A failure (`is_failure`) of the body, not told yet, told once through `tell(error, timed_out)` and marked
    (`was_told`), then raised: what `failures_told` does for a feed's action, for any entity's."""
    try:
        yield
    except Exception as err:
        if is_failure(err) and not was_told(err):
            tell(str(err) or type(err).__name__, isinstance(err, TimedOutError))
            setattr(err, _TOLD, True)
        raise


@dataclass(frozen=True)
class Checked:
    """A call past the switches and the action's path checks, inside its failure notice (`feed_checks`): a dry run
    works here, holding nothing; a run takes its lease with `leased`."""

    call: FeedCall
    context: RunContext
    ledger: Ledger

    @contextmanager
    def leased(self, lock: Callable[[Ledger], LeaseLock], what: str,
               details: LeaseDetails | None = None) -> Iterator[Lifecycle]:
        """The lease `lock` of the cluster's ledger (`what` names it to a second caller, told who holds it: exit 5;
        `details` go in the lock's record), held and renewed for the body."""
        with holding(lock(self.ledger), self.context.run_id, what, details) as lease:
            yield Lifecycle(self.call, self.context, self.ledger, lease)


@contextmanager
def feed_checks(call: FeedCall, context: RunContext, before_lease: Callable[[], None] = lambda: None) \
        -> Iterator[Checked]:
    """The switches (safemode: exit 5; the feed suspended: exit 4), then what the action does `before_lease`
    (paths it refuses before it writes anything, a lock included; a wait for its instance). A failure
    (`is_failure`) of these steps or of the body is told to the feed's `notification` through the context's
    notifier, then raised for the entrypoint's frame."""
    with failures_told(call, context.notifier, context.run_id):
        require_running_allowed(context.fs, call.cluster, "feed", call.feed.name)
        before_lease()
        yield Checked(call, context, context.ledger(call.cluster))


@contextmanager
def feed_lifecycle(call: FeedCall, context: RunContext, *, lock: Callable[[Ledger], LeaseLock], what: str,
                   details: LeaseDetails | None = None,
                   before_lease: Callable[[], None] = lambda: None) -> Iterator[Lifecycle]:
    """`feed_checks`, then the lease (`Checked.leased`) for the body: the whole lifecycle of a run that writes."""
    with feed_checks(call, context, before_lease) as checked, checked.leased(lock, what, details) as life:
        yield life


@contextmanager
def batch_lifecycle(process: Process, cluster: Cluster, context: RunContext, *,
                    tell: Callable[[str, bool], None]) -> Iterator[None]:
    """The lifecycle of a batch consumer's run, as `process_lifecycle` is an instance's: a failure (`is_failure`)
    told once through `tell(error, timed_out)` (the process's `notification`; the batch's attempts tell their own),
    then the switches (safemode: exit 5; the process suspended: exit 4). Its lease is the claim on its queue's plan
    (core/ledger/consumption.py), which the batch runner takes once it knows which plan: a second caller told who
    holds it (exit 5), a killed run's claim taken over, renewed with the locks of its outputs."""
    with told_on_failure(tell):
        require_running_allowed(context.fs, cluster, "process", process.name)
        yield


@contextmanager
def process_lifecycle(call: ProcessCall, context: RunContext, *, tell: Callable[[str, bool], None],
                      before_lease: Callable[[], None] = lambda: None,
                      stop_when: Callable[[], str | None] | None = None,
                      on_stop: Callable[[], None] | None = None) -> Iterator[HeldLease]:
    """The lifecycle of a process instance's run, as `feed_lifecycle` is a feed action's: a failure (`is_failure`)
    told once through `tell(error, timed_out)` (the process's `notification`; its attempts tell their own), the
    switches (safemode: exit 5; the process suspended: exit 4), what the runner checks `before_lease` (the
    instance's hold), then the instance's lease for the body: a second caller told who holds it (exit 5), a killed
    run's expired lease taken over (`HeldLease.previous`), a `toolkit kill` read at each renewal (`stop_when`,
    `on_stop`, as LeaseKeeper takes them)."""
    process, name = call.process, call.process.name
    with told_on_failure(tell):
        require_running_allowed(context.fs, call.cluster, "process", name)
        before_lease()
        with holding(context.ledger(call.cluster).instance_lock(name, call.nominal), context.run_id,
                     f"instance {call.instance} of process '{process.name}'", LeaseDetails(time=call.instance),
                     stop_when=stop_when, on_stop=on_stop) as held:
            yield held
