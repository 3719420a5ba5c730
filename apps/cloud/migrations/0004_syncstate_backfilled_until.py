"""SyncState.backfilled_until: the end of the history the first successful run imported.

Existing accounts were backfilled long ago; their first run started minutes after the row was
made (the account was connected), so its ``created_at`` stands in for the moment: the
periods before the account was connected were imported, which is what alerts need to know.
"""

from django.db import migrations, models
from django.db.models import F


def from_created_at(apps, schema_editor):
    SyncState = apps.get_model("cloud", "SyncState")
    SyncState.objects.filter(last_success_at__isnull=False, backfilled_until__isnull=True).update(
        backfilled_until=F("created_at")
    )


class Migration(migrations.Migration):
    dependencies = [
        ("cloud", "0003_instance_source"),
    ]

    operations = [
        migrations.AddField(
            model_name="syncstate",
            name="backfilled_until",
            field=models.DateTimeField(
                blank=True,
                help_text="What the first successful run synced up to: data before it was imported.",
                null=True,
            ),
        ),
        migrations.RunPython(from_created_at, migrations.RunPython.noop),
    ]
