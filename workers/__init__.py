"""Operations side of the background work: the Celery app, queues, schedule and defaults.

Tasks themselves live in ``apps/*/tasks.py`` beside the data they own.
"""

from workers.celery import app

__all__ = ["app"]
