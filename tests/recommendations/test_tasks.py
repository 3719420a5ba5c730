"""The run after each analysis (signal -> on_commit -> task) and the ``recommend`` command."""

from __future__ import annotations

import datetime as dt
from io import StringIO

import pytest
from django.core.management import call_command

from apps.accounts.models import Organization
from apps.analysis import services as analysis_services
from apps.recommendations.models import Recommendation
from apps.recommendations.tasks import recommend
from tests.recommendations.factories import AS_OF, END, bill_hours, make_instance, set_usage

pytestmark = pytest.mark.django_db


@pytest.fixture
def idle_box(acme: Organization):
    instance = make_instance(acme)
    set_usage(instance, gpu_util_p95=2.0)
    bill_hours(instance, start=END - dt.timedelta(days=14), hours=14 * 24)
    return instance


def test_it_runs_the_rules_after_an_analysis_commits(
    acme, idle_box, django_capture_on_commit_callbacks
) -> None:
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        analysis_services.analysis_full_run(as_of=AS_OF, organization_id=acme.pk)
    # Nothing before the analysis commits ...
    assert not Recommendation.objects.exists()
    # (other apps, alerts, also queue their work after an analysis)
    ours = [
        c for c in callbacks if getattr(c, "func", c).__module__.startswith("apps.recommendations")
    ]
    assert len(ours) == 1
    # ... then the queued task (eager in tests) stores the finding.
    ours[0]()
    assert list(Recommendation.objects.values_list("kind", flat=True)) == ["stop_idle"]


def test_it_runs_the_task_twice_without_a_second_row(acme, idle_box) -> None:
    first = recommend(organization_id=acme.pk, as_of=AS_OF.isoformat())
    second = recommend(organization_id=acme.pk, as_of=AS_OF.isoformat())
    assert (first["created"], second["created"], second["unchanged"]) == (1, 0, 1)
    assert Recommendation.objects.count() == 1


def test_it_refuses_a_naive_as_of(acme) -> None:
    with pytest.raises(ValueError, match="UTC offset"):
        recommend(organization_id=acme.pk, as_of="2026-11-16T00:00:00")


def test_it_recommends_from_the_command_line(acme, idle_box) -> None:
    out = StringIO()
    call_command("recommend", "--organization", acme.slug, "--as-of", AS_OF.isoformat(), stdout=out)
    assert out.getvalue().startswith("1 findings: 1 new")
