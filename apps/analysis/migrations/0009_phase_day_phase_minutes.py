# PhaseDay.<phase>_minutes (PostgreSQL only): the day's minutes of each known phase (idle, data
# processing, evaluation, training), stored generated columns summed from the packed bytes as
# ``labelled_minutes`` is (migration 0008). The summary reads them for the whole days of the
# instances priced without hourly lines (prepaid): decoding the month's PhaseDay bytes of 150
# prepaid instances in Python cost ~30 ms of a 1,000-instance summary. PostgreSQL computes them
# on every write; the model does not declare them (the embedded SQLite decodes the bytes).
from django.db import migrations

HOURS, PHASES = 24, 5
COLUMNS = ("idle", "data_processing", "evaluation", "training")  # Phase 1..4


def _sum(phase: int) -> str:
    return " + ".join(f"get_byte(minutes, {hour * PHASES + phase})" for hour in range(HOURS))


def add_columns(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(
        "ALTER TABLE analysis_phaseday "
        + ", ".join(
            f"ADD COLUMN {name}_minutes integer GENERATED ALWAYS AS ({_sum(phase)}) STORED"
            for phase, name in enumerate(COLUMNS, start=1)
        )
    )


def drop_columns(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(
        "ALTER TABLE analysis_phaseday "
        + ", ".join(f"DROP COLUMN {name}_minutes" for name in COLUMNS)
    )


class Migration(migrations.Migration):
    dependencies = [
        ("analysis", "0008_phase_day_labelled_minutes"),
    ]

    operations = [
        migrations.RunPython(add_columns, drop_columns),
    ]
