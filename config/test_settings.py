"""Settings for the test suite: the production settings, with test-only values filled in.

Only what a test run cannot provide from the environment is set here; DATABASE_URL and
REDIS_URL still decide whether the suite runs on PostgreSQL + Redis or the embedded defaults.
"""

import os

os.environ.setdefault("SECRET_KEY", "test-only-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz")
os.environ.setdefault("FIELD_ENCRYPTION_KEY", "8V9nXU6Wr3m3wq9GxYqCMyn3tqm2lH4Ccv0ghiEhUFs=")
# The live server of the browser tests speaks plain HTTP.
os.environ.setdefault("HTTPS", "0")
# Cloud calls retry with waits from a few milliseconds, so fault-injection tests stay fast.
os.environ.setdefault("TENCENT_RETRY_BASE_MS", "5")
os.environ.setdefault("TENCENT_RETRY_MAX_DELAY_MS", "100")
_worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
os.environ.setdefault(
    "VAR_DIR", os.path.join(os.path.dirname(os.path.dirname(__file__)), "var", "test", _worker)
)

from config.env import env_bool  # noqa: E402
from config.settings import *  # noqa: E402,F403
from config.settings import CACHES, CELERY_BROKER_URL, DATABASES, VAR_DIR  # noqa: E402

# A file-backed SQLite test database, so that a Celery worker process can open it too.
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test.sqlite3")}

# Each pytest-xdist worker gets its own Redis key space, so parallel tests never consume each
# other's messages.
if CELERY_BROKER_URL.startswith("redis"):
    CELERY_BROKER_TRANSPORT_OPTIONS = {"global_keyprefix": f"gpu-ledger-test-{_worker}:"}
# The same for the cache: throttle counters (sign-up is limited per client IP, and every test
# client is 127.0.0.1) and locks of one worker's tests must not be spent by another's.
CACHES["default"]["KEY_PREFIX"] = f"gpu-ledger-test-{_worker}"

# Unit tests run tasks in-process; the integration tests switch this off and use a real worker.
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", True)
CELERY_TASK_EAGER_PROPAGATES = True
