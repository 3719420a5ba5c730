# PhaseDay.labelled_minutes (PostgreSQL only): the day's labelled minutes (every phase but
# unknown, of every hour), a stored generated column summed from the packed bytes. The
# analysis-behind check (apps.analysis.no_data._BEHIND_SQL) compares it with the metric minutes
# of each day of a fleet's period; summing 96 get_byte calls per row at read time cost ~110 ms
# for a 1,000-instance month. PostgreSQL computes it on every write, so neither the COPY nor the
# upsert of apps.analysis.storage.phase_days names it, and the Django model does not know it
# (the embedded SQLite has no get_byte and checks the days in Python).
from django.db import migrations

HOURS, PHASES = 24, 5
LABELLED_SUM = " + ".join(
    f"get_byte(minutes, {hour * PHASES + phase})"
    for hour in range(HOURS)
    for phase in range(1, PHASES)
)


def add_column(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(
        "ALTER TABLE analysis_phaseday ADD COLUMN labelled_minutes integer"
        f" GENERATED ALWAYS AS ({LABELLED_SUM}) STORED"
    )


def drop_column(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("ALTER TABLE analysis_phaseday DROP COLUMN labelled_minutes")


class Migration(migrations.Migration):

    dependencies = [
        ('analysis', '0007_billed_hours_from_runtime_lines'),
    ]

    operations = [
        migrations.RunPython(add_column, drop_column),
    ]
