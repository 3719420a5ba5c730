"""Compress raw days with lz4 on PostgreSQL (when the server has it).

lz4 compresses the NaN stretches of stopped instances about as well as the default pglz but
decompresses several times faster, which is what the analysis' whole-fleet reads and the
merge of 5-minute increments spend their time on (see bench/RESULTS.md).
"""

from django.db import migrations


def use_lz4(apps, schema_editor):
    connection = schema_editor.connection
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression'"
            " AND 'lz4' = ANY(enumvals)"
        )
        if cursor.fetchone():
            cursor.execute('ALTER TABLE metrics_metricday ALTER COLUMN "values" SET COMPRESSION lz4')


class Migration(migrations.Migration):
    dependencies = [("metrics", "0001_initial")]

    operations = [migrations.RunPython(use_lz4, migrations.RunPython.noop, elidable=False)]
