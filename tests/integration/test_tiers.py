"""The integration tier's own machinery (tests/integration/tiers.py, tests/jvm_options.py): pytest-xdist groups the
tests that share a set-up, so one worker starts it, and a child given an environment of its own keeps the tests'
JVM options; the `jvm` tests of no group are handed out first."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.jvm_archive import prepared_folder
from tests.integration.tiers import starts_first, xdist_can_group
from tests.jvm_options import with_short_lived


@pytest.fixture(scope="module")
def module_set_up() -> str:
    return "built once for the module"


def test_xdist_can_group_under_the_pytest_constraints_pins() -> None:
    assert xdist_can_group()


def test_a_test_sharing_a_module_set_up_runs_in_its_modules_group(module_set_up: str,
                                                                   request: pytest.FixtureRequest) -> None:
    if not getattr(request.config.option, "loadgroup", False):
        pytest.skip("runs on pytest-xdist's --dist loadgroup workers (make test)")
    assert request.node.nodeid.endswith("@tests/integration/test_tiers.py")


def test_a_child_environment_of_its_own_keeps_the_tests_jvm_options(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPARK_SUBMIT_OPTS", "-XX:TieredStopAtLevel=1")
    assert with_short_lived({"PATH": "/usr/bin:/bin"}) == {"PATH": "/usr/bin:/bin",
                                                           "SPARK_SUBMIT_OPTS": "-XX:TieredStopAtLevel=1"}
    assert with_short_lived({"SPARK_SUBMIT_OPTS": "-Xmx1g"}) == {"SPARK_SUBMIT_OPTS": "-Xmx1g"}  # its own wins
    monkeypatch.delenv("SPARK_SUBMIT_OPTS")
    assert with_short_lived({"PATH": "/usr/bin:/bin"}) == {"PATH": "/usr/bin:/bin"}


def test_the_archive_make_test_prepares_is_where_the_tier_looks(request: pytest.FixtureRequest) -> None:
    """`make test` has the class-data archive made during the unit tier into `prepared_folder()`: the folder the
    integration tier's fixture maps it from, or the making was for nothing."""
    assert prepared_folder() == Path(request.config.cache.mkdir("jvm-archive"))


def test_the_jvm_tests_of_no_group_are_collected_before_the_others(request: pytest.FixtureRequest) -> None:
    """pytest-xdist hands out the tests of no group in their collected order: the long ones must come first."""
    firsts = [starts_first(item) for item in request.session.items]
    if not any(firsts):
        pytest.skip("this run collected no jvm test of no group (a -m or -k selection)")
    assert firsts == sorted(firsts, reverse=True)
