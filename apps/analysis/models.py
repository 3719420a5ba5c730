"""Stored results of the utilization analysis and the organization's threshold overrides.

The per-minute labels themselves are never stored: they are summarized three ways, each for a
different reader. Phase segments (when did the card do what), per-hour phase minutes packed
by UTC day in ``PhaseDay`` (dashboards, summaries) and one hour-of-week profile per instance
(day/night schedules). Everything here is recomputable from the raw metrics, so it is written idempotently
by ``services.analysis_run`` and never edited by hand.
"""

from __future__ import annotations

import numpy as np
from django.db import models

from apps.analysis.engine import DEFAULT_THRESHOLDS, Evidence, Phase, PhaseThresholds
from apps.core.models import OrganizationQuerySet, OrganizationScopedModel, TimestampedModel


class PhaseChoices(models.IntegerChoices):
    """Mirror of ``engine.Phase``: the integers are stored, so they must never change."""

    UNKNOWN = int(Phase.UNKNOWN), "Unknown (no data)"
    IDLE = int(Phase.IDLE), "Idle"
    DATA_PROCESSING = int(Phase.DATA_PROCESSING), "Data processing (data-bound)"
    EVALUATION = int(Phase.EVALUATION), "Evaluation"
    TRAINING = int(Phase.TRAINING), "Training"


def phase_key(phase: int) -> str:
    """The JSON/API name of a phase, e.g. ``data_processing``."""
    return Phase(phase).name.lower()


PHASE_KEYS: tuple[str, ...] = tuple(phase_key(p) for p in Phase)


class AnalysisSettings(TimestampedModel):
    """An organization's overrides of ``PhaseThresholds`` (only the keys it changed)."""

    organization = models.OneToOneField(
        "accounts.Organization", on_delete=models.CASCADE, related_name="analysis_settings"
    )
    thresholds = models.JSONField(default=dict, blank=True)

    def __str__(self) -> str:
        return f"analysis settings of {self.organization_id}"

    def phase_thresholds(self) -> PhaseThresholds:
        """The effective thresholds: defaults with this organization's overrides applied."""
        return DEFAULT_THRESHOLDS.with_overrides(self.thresholds or {})


# RESULT_FK: the two bulk result tables (PhaseSegment, PhaseDay) carry no database foreign-key
# constraints. Django makes its FK constraints DEFERRABLE INITIALLY DEFERRED, so every row the
# analysis COPYs queues two trigger checks that run at COMMIT: ~15 us a row, 2.8 s of a 5.3 s
# run for 200 instances x 30 days (~14 s for the 1,000-instance fleet), more than the engine.
# The rows are recomputable results whose ids come from a validated Instance query
# (``analysis_run`` refuses unknown ids), and ``on_delete=CASCADE`` is applied by Django's
# deletion collector, so deleting an instance or organization through the ORM still removes
# them; only a raw SQL delete of an instance would leave orphans (ignored by every reader,
# which joins or filters through instances).


class PhaseSegment(models.Model):
    """A run of minutes of one phase, ``[start_at, end_at)``, never crossing a UTC midnight.

    Segments are cut at UTC midnights so that re-analysing a range of whole days replaces whole
    rows and never has to clip a neighbour (which would make a re-run drift); the selectors
    merge adjacent segments of the same phase back together for readers.
    """

    # No database FK constraints (see RESULT_FK): Django still cascades deletes.
    organization = models.ForeignKey(
        "accounts.Organization",
        on_delete=models.CASCADE,
        related_name="+",
        db_index=False,
        db_constraint=False,
    )
    instance = models.ForeignKey(
        "cloud.Instance",
        on_delete=models.CASCADE,
        related_name="phase_segments",
        db_index=False,
        db_constraint=False,
    )
    phase = models.PositiveSmallIntegerField(choices=PhaseChoices.choices)
    start_at = models.DateTimeField()
    end_at = models.DateTimeField()
    mean_gpu_util_pct = models.FloatField(
        null=True, blank=True, help_text="NULL for an unknown segment (nothing observed)."
    )
    evidence = models.PositiveSmallIntegerField(
        default=int(Evidence.FULL),
        help_text=(
            "Metrics present in at least half of the segment's minutes, as engine.Evidence bits "
            "(1 GPU utilization, 2 GPU memory, 4 CPU; 0 for an unknown segment). A missing "
            "metric leaves some phases unseparated (engine.unseparated_phases)."
        ),
    )

    objects = OrganizationQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["instance", "start_at"], name="phasesegment_unique_instance_start"
            ),
            models.CheckConstraint(
                condition=models.Q(end_at__gt=models.F("start_at")),
                name="phasesegment_not_empty",
            ),
        ]
        # No other index: every read goes by instance (the unique constraint's index), and a
        # fleet analysis inserts ~300k segments, each paying for every index the table has.

    def __str__(self) -> str:
        return f"{self.instance_id} {phase_key(self.phase)} {self.start_at}-{self.end_at}"


#: Shape of ``PhaseDay.minutes``: 24 UTC hours x the phases (Phase order).
PHASE_DAY_SHAPE: tuple[int, int] = (24, len(PHASE_KEYS))


def phase_day_decode(raw: bytes | memoryview) -> np.ndarray:
    """(24, phases) int64 minute counts of a stored ``PhaseDay.minutes`` value."""
    return np.frombuffer(bytes(raw), dtype=np.uint8).reshape(PHASE_DAY_SHAPE).astype(np.int64)


def phase_day_encode(minutes: np.ndarray) -> bytes:
    """The stored form of (24, phases) minute counts (each 0..60)."""
    array = np.asarray(minutes)
    if array.shape != PHASE_DAY_SHAPE or array.min(initial=0) < 0 or array.max(initial=0) > 60:
        raise ValueError(f"expected {PHASE_DAY_SHAPE} counts in 0..60")
    return array.astype(np.uint8).tobytes()


class PhaseDay(models.Model):
    """Minutes of each phase in every hour of one UTC day of one instance.

    One row per (instance, UTC day) instead of one per hour: ``minutes`` packs the 24 hours x 5
    phases (unknown, idle, data_processing, evaluation, training) as 120 unsigned bytes, hour
    major (byte ``5 * hour + phase``; a count is at most 60), decoded with
    ``phase_day_decode``. A fleet's month is 30,000 rows rather than 720,000 (a row, its tuple
    header and its index entries cost about the same whatever the payload), written in bulk
    (binary COPY and one upsert on PostgreSQL) and only when its bytes change.

    This narrow table, owned by the analysis, is the home of per-hour phase minutes, not the
    ``phase_minutes`` JSON of the metrics app's ``InstanceHourRollup``/``InstanceDayRollup``:
    those rows are wide (seven metrics x four statistics), so rewriting one JSON value copies
    the whole row and its index entries (~50 us a row; 31 s for a fleet's month).

    An hour holds counts when it was analysed and had at least one observed minute of the
    analysis' metrics; an hour of all zeros was either never analysed or had no data (all
    unknown), and a day of all zeros has no row. A trailing partial hour counts only the
    minutes analysed so far. Days (in the organization's timezone) are summed from the hours
    by ``selectors.phase_minutes_daily``.

    On PostgreSQL the table also has ``labelled_minutes``, a stored generated column (migration
    0008) that the database sums from ``minutes`` on every write: the day's minutes of every
    phase but unknown, read by ``no_data`` to find the days the analysis is behind on. The model
    does not declare it; nothing here writes it.
    """

    # No database FK constraints (see RESULT_FK): Django still cascades deletes.
    organization = models.ForeignKey(
        "accounts.Organization",
        on_delete=models.CASCADE,
        related_name="+",
        db_index=False,
        db_constraint=False,
    )
    instance = models.ForeignKey(
        "cloud.Instance",
        on_delete=models.CASCADE,
        related_name="phase_days",
        db_index=False,
        db_constraint=False,
    )
    day = models.DateField(help_text="The UTC day.")
    minutes = models.BinaryField(
        help_text="24 hours x 5 phases of minute counts, uint8, hour major (phase_day_decode)."
    )

    # The natural key is the primary key: no surrogate id, its sequence and a third index.
    pk = models.CompositePrimaryKey("instance", "day")

    objects = OrganizationQuerySet.as_manager()

    class Meta:
        indexes = [models.Index(fields=["organization", "day"], name="phaseday_org_day")]

    def __str__(self) -> str:
        return f"{self.instance_id} {self.day}"

    def hours(self) -> np.ndarray:
        """(24, phases) minute counts, Phase order."""
        return phase_day_decode(self.minutes)

    def hour_minutes(self) -> list[dict[str, int]]:
        """Phase key -> minutes of each UTC hour (all zeros for an hour without data)."""
        return [dict(zip(PHASE_KEYS, row, strict=True)) for row in self.hours().tolist()]


class InstanceProfile(OrganizationScopedModel):
    """Hour-of-week profile of an instance's GPU utilization over the last 14 days.

    Matrices are 7 x 24 lists (Monday first, local hours of ``tz``), ``null`` where a cell had
    no observed minute. ``computed_at`` is the analysis' ``as_of``, not the wall clock, so
    re-running the same analysis rewrites nothing.
    """

    instance = models.OneToOneField(
        "cloud.Instance", on_delete=models.CASCADE, related_name="analysis_profile"
    )
    tz = models.CharField(max_length=64)
    start_at = models.DateTimeField()
    end_at = models.DateTimeField()
    computed_at = models.DateTimeField()
    median_pct = models.JSONField()
    p95_pct = models.JSONField()
    coverage = models.JSONField()
    has_off_window = models.BooleanField(default=False)
    off_window_weekly_hours = models.PositiveSmallIntegerField(null=True, blank=True)
    off_window_supporting_weeks = models.PositiveSmallIntegerField(null=True, blank=True)
    off_window = models.JSONField(
        null=True, blank=True, help_text="Runs, cells and support of the off window, or NULL."
    )
    low_around_the_clock = models.BooleanField(
        default=False,
        help_text="Every observed hour of the week is low: an idle instance, never a window.",
    )
    low_around_the_clock_detail = models.JSONField(
        null=True, blank=True, help_text="Observed hours and support of that finding, or NULL."
    )

    def __str__(self) -> str:
        return f"profile of {self.instance_id} ({self.tz})"


class AnalysisState(models.Model):
    """Per-instance watermark of the incremental analysis.

    ``analysed_until`` is the end of the last analysed range; ``data_checked_at`` the wall-clock
    moment before the data of the last incremental or full run was read. Rollup rows updated
    after it (late points) or hours at or after ``analysed_until`` are what the next hourly run
    re-analyses.
    """

    instance = models.OneToOneField(
        "cloud.Instance", on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    analysed_until = models.DateTimeField()
    data_checked_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.instance_id} analysed until {self.analysed_until}"


class BilledHoursDay(models.Model):
    """The runtime billed for one instance on one UTC day (every runtime component of its
    hours, apps.billing.runtime): its cost and which hours.

    The summary prices a fleet's phases with the bills: the money of the hours billed in the
    period, split over the phase minutes of those hours. Read line by line that is ~720,000
    hourly compute lines for a 1,000-instance month; this rollup is one row per instance-day
    (~30,000), keyed like ``PhaseDay`` so the two join row to row.

    Only *regular* hourly lines are here: on a whole UTC hour, running to its 59:59 or the next
    hour's 00:00 (all of Tencent's hourly compute lines). ``cost`` is their exact sum and bit
    ``h`` of ``hours`` says UTC hour ``h`` had at least one (two lines of one hour are one hour
    of use). Any other line up to an hour long (cut mid-hour, say) is only counted in
    ``other_lines``, so ``fleet_pricing`` knows which days to read line by line; it reads this
    table only for the whole UTC days inside a period (subscription lines are never here).

    Derived from billing's lines by ``billed_hours.billed_hours_rebuild`` on ``bill_lines_changed``
    (and in full the first time an organization is read); UTC days, so the organization's
    timezone does not move them. PostgreSQL only, like the reader.
    """

    organization = models.ForeignKey(
        "accounts.Organization",
        on_delete=models.CASCADE,
        related_name="+",
        db_index=False,
        db_constraint=False,
    )
    instance = models.ForeignKey(
        "cloud.Instance",
        on_delete=models.CASCADE,
        related_name="+",
        db_index=False,
        db_constraint=False,
    )
    day = models.DateField(help_text="The UTC day the hours begin on.")
    cost = models.DecimalField(
        max_digits=20, decimal_places=8, help_text="Exact sum of the regular lines' cost."
    )
    currency = models.CharField(max_length=3)
    hours = models.PositiveIntegerField(help_text="Bit h set: UTC hour h was billed.")
    other_lines = models.PositiveIntegerField(
        help_text="Hourly compute lines of the day that are not regular (read line by line)."
    )
    # The phase minutes of the billed hours (``PhaseDay`` masked by ``hours``), one column per
    # known phase (the rest of those hours is unknown): the summary sums them for the period's
    # whole UTC days instead of reading and unpacking every day's PhaseDay bytes. Written with
    # the row, and again when the analysis rewrites the day's PhaseDay (``phase_days_replace``).
    idle_minutes = models.PositiveIntegerField(default=0)
    data_processing_minutes = models.PositiveIntegerField(default=0)
    evaluation_minutes = models.PositiveIntegerField(default=0)
    training_minutes = models.PositiveIntegerField(default=0)

    pk = models.CompositePrimaryKey("instance", "day")

    objects = OrganizationQuerySet.as_manager()

    class Meta:
        indexes = [models.Index(fields=["organization", "day"], name="billedhoursday_org_day")]

    def __str__(self) -> str:
        return f"{self.instance_id} {self.day} {self.cost} {self.currency}"


class BilledHoursState(models.Model):
    """Present once an organization's ``BilledHoursDay`` rows were built (absent: never)."""

    organization = models.OneToOneField(
        "accounts.Organization", on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    rebuilt_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"billed hours of {self.organization_id}"


def _minutes_column(help_text: str) -> models.PositiveIntegerField:
    return models.PositiveIntegerField(default=0, help_text=help_text)


class WasteDay(models.Model):
    """What the fleet summary sums of one instance, as running totals to the end of ``day``
    (from the day the organization's rows start, ``WasteDayState``; see ``waste_days``).

    The summary prices every instance of a period (``fleet_pricing``): summing ~30,000
    instance-days of bills, phases, purchases and metrics per request cost ~100 ms for a
    1,000-instance month. As running totals a period of whole UTC days is each instance's row
    at the period's last day less the one at the day before its first: two rows per instance,
    read by day, whatever the period's length. So every instance has a row for every day from
    the first it had anything to the last rebuilt (and up to ``FULL_BUILD_DAYS`` after it was
    terminated), day after day without gaps.

    The columns are ``fleet_pricing``'s figures, none of which depends on the instance's
    project, cards, state, launch or termination (the summary reads those with the instance):

    - ``billed_*``: its runtime lines' cost (a line that runs into the next day, its share),
      the days with any, and the phase minutes of the hours they bill (minutes those lines bill
      but nothing labelled: ``billed_unknown_minutes``);
    - ``*_minutes`` of the four known phases: every minute the analysis labelled
      (``PhaseDay``), for an instance priced without hourly bills;
    - ``spread_*``: its purchases', renewals' and refunds' runtime cost amortized into the days
      and the seconds of them they cover;
    - ``pending_minutes``: minutes with GPU utilization and no phase yet.

    Derived, PostgreSQL only like its reader: rebuilt by ``waste_days.waste_days_rebuild``
    after the billed-hours rollup (bill lines changed) and after the analysis rewrites
    ``PhaseDay`` (the days and instances it rewrote).
    """

    organization = models.ForeignKey(
        "accounts.Organization",
        on_delete=models.CASCADE,
        related_name="+",
        db_index=False,
        db_constraint=False,
    )
    instance = models.ForeignKey(
        "cloud.Instance",
        on_delete=models.CASCADE,
        related_name="+",
        db_index=False,
        db_constraint=False,
    )
    day = models.DateField(help_text="The UTC day the running totals run to.")
    billed_cost = models.DecimalField(max_digits=28, decimal_places=12)
    billed_lines = models.PositiveIntegerField(default=0)
    billed_currency = models.CharField(max_length=3, blank=True)
    billed_unknown_minutes = _minutes_column("Billed minutes nothing labelled.")
    billed_idle_minutes = _minutes_column("Billed minutes labelled idle.")
    billed_data_processing_minutes = _minutes_column("Billed minutes labelled data processing.")
    billed_evaluation_minutes = _minutes_column("Billed minutes labelled evaluation.")
    billed_training_minutes = _minutes_column("Billed minutes labelled training.")
    idle_minutes = _minutes_column("Minutes labelled idle.")
    data_processing_minutes = _minutes_column("Minutes labelled data processing.")
    evaluation_minutes = _minutes_column("Minutes labelled evaluation.")
    training_minutes = _minutes_column("Minutes labelled training.")
    spread_cost = models.DecimalField(max_digits=28, decimal_places=12)
    spread_seconds = models.BigIntegerField(default=0)
    spread_currency = models.CharField(max_length=3, blank=True)
    pending_minutes = _minutes_column("Minutes with GPU utilization and no phase yet.")

    pk = models.CompositePrimaryKey("instance", "day")

    objects = OrganizationQuerySet.as_manager()

    class Meta:
        indexes = [models.Index(fields=["organization", "day"], name="wasteday_org_day")]

    def __str__(self) -> str:
        return f"{self.instance_id} {self.day} {self.billed_cost}"


class WasteDayState(models.Model):
    """The UTC days an organization's ``WasteDay`` rows cover: every instance's, for every day
    from ``first_day`` (its running totals start the day before, at zero) to ``last_day``
    (absent: never built; the summary reads the bills)."""

    organization = models.OneToOneField(
        "accounts.Organization", on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    first_day = models.DateField()
    last_day = models.DateField()
    rebuilt_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"waste days of {self.organization_id}: {self.first_day}..{self.last_day}"
