"""Raw days as int16 fixed point when exact (``scale``), kept inline in their rows on PostgreSQL.

A 2,880-byte coded day fits in its table row, two rows a page; the table's TOAST threshold is
raised so PostgreSQL leaves such rows whole instead of compressing them and moving them out of
line, and the column is MAIN so a float32 day (5,760 bytes) is compressed but kept inline too.
Reading a day then costs no TOAST index lookup (see bench/RESULTS.md). Existing rows stay float32
(scale 0) and are re-laid out the next time they are rewritten.
"""

import django.db.models.functions.text
import django.db.models.lookups
from django.db import migrations, models



def keep_days_inline(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("ALTER TABLE metrics_metricday SET (toast_tuple_target = 4080)")
    schema_editor.execute('ALTER TABLE metrics_metricday ALTER COLUMN "values" SET STORAGE MAIN')


def move_days_out_of_line(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("ALTER TABLE metrics_metricday RESET (toast_tuple_target)")
    schema_editor.execute('ALTER TABLE metrics_metricday ALTER COLUMN "values" SET STORAGE EXTENDED')


class Migration(migrations.Migration):

    dependencies = [
        ('cloud', '0002_cloud_accounts_sync_prices'),
        ('metrics', '0003_metricdayrecent'),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='metricday',
            name='metricday_values_one_day',
        ),
        migrations.AddField(
            model_name='metricday',
            name='scale',
            field=models.PositiveSmallIntegerField(default=0, help_text='0: values are float32 (NaN = no point); N: int16 codes, value = code / N.'),
        ),
        migrations.AlterField(
            model_name='metricday',
            name='values',
            field=models.BinaryField(help_text='1,440 little-endian float32 or int16 codes (see scale), minute 0 first.'),
        ),
        migrations.AddConstraint(
            model_name='metricday',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(django.db.models.lookups.Exact(django.db.models.functions.text.Length('values'), 5760), ('scale', 0)), models.Q(django.db.models.lookups.Exact(django.db.models.functions.text.Length('values'), 2880), ('scale__in', (100, 10, 1))), _connector='OR'), name='metricday_values_one_day'),
        ),
        migrations.RunPython(keep_days_inline, move_days_out_of_line, elidable=False),
    ]
