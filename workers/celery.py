"""The Celery application.

Configured from Django settings (``CELERY_*``); with no REDIS_URL it uses kombu's file-system
transport under ``var/`` so the embedded default needs no broker server.
"""

import os

from celery import Celery
from kombu import Queue

from workers import queues
from workers.schedule import BEAT_SCHEDULE

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("gpu_ledger")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.update(
    task_queues=[Queue(name) for name in queues.ALL],
    task_default_queue=queues.DEFAULT,
    task_ignore_result=True,
    task_serializer="json",
    accept_content=["json"],
    worker_prefetch_multiplier=1,
    broker_connection_retry_on_startup=True,
    beat_schedule=BEAT_SCHEDULE,
    timezone="UTC",
)
# Finds apps/*/tasks.py of every installed app.
app.autodiscover_tasks()
