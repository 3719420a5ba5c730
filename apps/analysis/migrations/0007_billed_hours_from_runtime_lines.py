# The billed-hours rollup now holds every runtime component of an hour (apps.billing.runtime),
# not the v_cvm_compute component alone: forget that it was built, so the next build (the first
# read, billed_hours_ensure) sums every organization's days again from the lines.
from django.db import migrations


def forget_builds(apps, schema_editor):
    apps.get_model("analysis", "BilledHoursState").objects.all().delete()


class Migration(migrations.Migration):

    dependencies = [
        ('analysis', '0006_billed_hours_day'),
        ('billing', '0007_component_days'),
    ]

    operations = [
        migrations.RunPython(forget_builds, migrations.RunPython.noop),
    ]
