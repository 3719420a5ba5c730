"""GPU Ledger settings, read from the environment.

Every variable is documented in README.md ("Configuration"). With nothing set, the project runs
on the embedded defaults: SQLite and a file-system Celery broker under ``var/``, so a newcomer
needs only Python and Node. Production sets DEBUG=0, SECRET_KEY, FIELD_ENCRYPTION_KEY,
DATABASE_URL and REDIS_URL.
"""

import ipaddress
from pathlib import Path

import dj_database_url
import dj_email_url
from django.core.exceptions import ImproperlyConfigured

from config.env import env_bool, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("VAR_DIR", str(BASE_DIR / "var")))
VAR_DIR.mkdir(parents=True, exist_ok=True)

DEBUG = env_bool("DEBUG", False)

# Only a DEBUG process may fall back to a throw-away key: a production process without a
# secret must refuse to start rather than sign sessions with a key everybody knows.
SECRET_KEY = env_str("SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG=0")
    SECRET_KEY = "insecure-dev-key-only-for-debug-never-for-production-0123456789"

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    "apps.core",
    "apps.accounts",
    "apps.api",
    "apps.cloud",
    "apps.billing",
    "apps.metrics",
    "apps.analysis",
    "apps.recommendations",
    "apps.costs",
    "apps.alerts",
    "apps.exports",
    "apps.digests",
    "apps.automation",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Before whitenoise, which answers static files itself: every response has the policy.
    "apps.core.security.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    # /api/: a 400 for a query parameter or path id the OpenAPI schema does not take.
    "apps.api.parameters.ParameterContractMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # /api/ in the reader's language (their chosen one, else Accept-Language): apps.api.language.
    "apps.api.language.ApiLanguageMiddleware",
    # Keeps the request being served, so the audit log records its actor and address.
    "apps.accounts.audit.context.AuditContextMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Axes must come last: it turns a locked-out login into its lockout response.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

FRONTEND_DIST_DIR = BASE_DIR / "frontend" / "dist"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------------------------
DATABASE_URL = env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'gpu_ledger.sqlite3'}")
DATABASES = {
    "default": dj_database_url.parse(DATABASE_URL, conn_max_age=env_int("DB_CONN_MAX_AGE", 60))
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The embedded default is shared by the web server, the worker and beat: WAL and a busy
    # timeout let them write one after the other instead of failing with "database is locked".
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Redis, cache, Celery -------------------------------------------------------------------
REDIS_URL = env_str("REDIS_URL")

if REDIS_URL:
    CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}
    }
else:
    # A file cache is shared by every process on the machine, unlike the local-memory cache.
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(VAR_DIR / "cache"),
        }
    }

CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", REDIS_URL or "filesystem://")
CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {}
if CELERY_BROKER_URL.startswith("filesystem://"):
    _broker_dir = VAR_DIR / "celery" / "broker"
    _broker_dir.mkdir(parents=True, exist_ok=True)
    (VAR_DIR / "celery" / "processed").mkdir(parents=True, exist_ok=True)
    (VAR_DIR / "celery" / "control").mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_dir),
        "data_folder_out": str(_broker_dir),
        "control_folder": str(VAR_DIR / "celery" / "control"),
        "processed_folder": str(VAR_DIR / "celery" / "processed"),
        "store_processed": False,
    }
CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND") or None
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)

# --- Authentication -------------------------------------------------------------------------
AUTH_USER_MODEL = "accounts.User"
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    # Refuses every sign-in at an account locked by the per-account back-off (lockout.py).
    "apps.accounts.lockout.AccountLockoutBackend",
    "django.contrib.auth.backends.ModelBackend",
]
PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.Argon2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "/login"

AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = 0.25  # hours: a locked-out login may try again after 15 minutes
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_USERNAME_FORM_FIELD = "email"
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "apps.accounts.lockout.lockout_response"
AXES_VERBOSE = False
# Credential stuffing spreads its guesses over many addresses: the account itself locks after
# this many wrong passwords from anywhere, for LOGIN_BACKOFF_SECONDS, doubling with each
# further wrong password after a lock-out (up to the maximum); a quiet day or a sign-in that
# gets through forgets them. The account's owner is e-mailed at each lock-out.
LOGIN_ACCOUNT_FAILURE_LIMIT = env_int("LOGIN_ACCOUNT_FAILURE_LIMIT", 20)
LOGIN_BACKOFF_SECONDS = env_int("LOGIN_BACKOFF_SECONDS", 60)
LOGIN_BACKOFF_MAX_SECONDS = env_int("LOGIN_BACKOFF_MAX_SECONDS", 3600)
if LOGIN_ACCOUNT_FAILURE_LIMIT < 1 or not 0 < LOGIN_BACKOFF_SECONDS <= LOGIN_BACKOFF_MAX_SECONDS:
    raise ImproperlyConfigured(
        "LOGIN_ACCOUNT_FAILURE_LIMIT must be 1 or more, and 0 < LOGIN_BACKOFF_SECONDS <= "
        "LOGIN_BACKOFF_MAX_SECONDS"
    )

# The audit log (Settings -> Audit log, /api/v1/audit-log) keeps entries this long; a daily
# beat task purges older ones.
AUDIT_RETENTION_DAYS = env_int("AUDIT_RETENTION_DAYS", 365)

# Secrets of cloud accounts are encrypted with Fernet. Several comma-separated keys allow
# rotation: the first encrypts, all decrypt (see apps.core.crypto).
FIELD_ENCRYPTION_KEY = env_str("FIELD_ENCRYPTION_KEY")
if not FIELD_ENCRYPTION_KEY and not DEBUG:
    raise ImproperlyConfigured("FIELD_ENCRYPTION_KEY must be set when DEBUG=0")

# --- Client addresses -----------------------------------------------------------------------
# X-Forwarded-For is believed only from proxies the operator names (apps.core.clientip): every
# rate limit, the sign-in lock-out and the audit log key on that one address. Either the number
# of proxies in front of the server (each appends the address it saw) or their CIDR blocks;
# neither (the default): the socket's peer is the client.
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0)
TRUSTED_PROXIES = env_list("TRUSTED_PROXIES", [])
if TRUSTED_PROXY_COUNT < 0:
    raise ImproperlyConfigured("TRUSTED_PROXY_COUNT must be 0 or more")
if TRUSTED_PROXY_COUNT and TRUSTED_PROXIES:
    raise ImproperlyConfigured("Set TRUSTED_PROXY_COUNT or TRUSTED_PROXIES, not both")
for _block in TRUSTED_PROXIES:
    try:
        ipaddress.ip_network(_block, strict=False)
    except ValueError as _exc:
        raise ImproperlyConfigured(
            f"TRUSTED_PROXIES must be CIDR blocks (10.0.0.0/8,...), got {_block!r}"
        ) from _exc
AXES_CLIENT_IP_CALLABLE = "apps.core.clientip.client_address"

# --- Outbound requests ----------------------------------------------------------------------
# A cloud account's endpoint override and alert webhooks connect only to public addresses
# (apps.core.outbound: checked after DNS resolution, when saved and when connecting). Named
# hosts here ("host" or "host:port", comma-separated) are let through whatever they resolve
# to: `make demo` lists its own simulator, 127.0.0.1:$SIMULATOR_PORT, and nothing else.
OUTBOUND_ALLOWED_HOSTS = env_list("OUTBOUND_ALLOWED_HOSTS", [])

# --- HTTPS and cookies ----------------------------------------------------------------------
# Production sits behind TLS; HTTPS=0 turns the TLS-only settings off for plain-HTTP setups
# such as the test live server.
HTTPS = env_bool("HTTPS", not DEBUG)
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = HTTPS
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
# A failed CSRF check of an /api/ request answers in the API's error shape (JSON), not HTML.
CSRF_FAILURE_VIEW = "apps.api.views.csrf_failure"
SECURE_HSTS_SECONDS = 31_536_000 if HTTPS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = HTTPS
SECURE_HSTS_PRELOAD = HTTPS
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_AGE = 14 * 24 * 3600
# No script reads the CSRF cookie: the SPA takes the token from its page (index.html carries it
# in <meta name="csrf-token">) or from GET /api/v1/auth/csrf after a sign-in rotated it.
CSRF_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
# SecurityMiddleware's headers, stated: no MIME sniffing, and the full URL (which can carry a
# token) never goes to another site as a Referer.
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"

# --- Content-Security-Policy (apps.core.security) -------------------------------------------
# Everything the product serves comes from its own origin: the SPA's bundle, the admin's and the
# API docs' assets (drf-spectacular-sidecar), fonts bundled in the CSS. Scripts run only from
# files of this origin: no inline script, no event-handler attribute, no eval, so a name that
# reached HTML unescaped still could not run. Styles allow 'unsafe-inline': ECharts writes its
# tooltips as HTML with inline style attributes (the colour dots, the layout), the Swagger UI
# injects <style> elements, and the e-mail previews are styled inline; a style cannot
# run script. `make dev` needs nothing relaxed for the app: the Vite dev server serves its pages
# (with its own inline HMR preamble) and Django only answers the proxied /api and /admin; DEBUG
# allows inline scripts only so that Django's debug error pages can fold their tracebacks.
CONTENT_SECURITY_POLICY: dict[str, list[str]] = {
    "default-src": ["'self'"],
    "script-src": ["'self'", "'unsafe-inline'"] if DEBUG else ["'self'"],
    "style-src": ["'self'", "'unsafe-inline'"],
    # data: for the digest preview's charts (PNG data URLs) and the CSS's inline icons.
    "img-src": ["'self'", "data:"],
    "font-src": ["'self'", "data:"],
    "connect-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "frame-ancestors": ["'none'"],
    "form-action": ["'self'"],
}

# --- E-mail ---------------------------------------------------------------------------------
EMAIL_URL = env_str("EMAIL_URL", "console:" if DEBUG else "smtp://localhost:25")
# Where a local mail catcher keeps what the product sends (make demo sets it to var/mail): the
# dashboard says so next to invitations and digests, so a newcomer can open the links.
CAUGHT_MAIL_DIR = env_str("CAUGHT_MAIL_DIR", "")
_email = dj_email_url.parse(EMAIL_URL)
EMAIL_BACKEND = _email["EMAIL_BACKEND"]
EMAIL_HOST = _email["EMAIL_HOST"] or "localhost"
EMAIL_PORT = _email["EMAIL_PORT"] or 25
EMAIL_HOST_USER = _email["EMAIL_HOST_USER"] or ""
EMAIL_HOST_PASSWORD = _email["EMAIL_HOST_PASSWORD"] or ""
EMAIL_USE_TLS = bool(_email["EMAIL_USE_TLS"])
EMAIL_USE_SSL = bool(_email["EMAIL_USE_SSL"])
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "GPU Ledger <ledger@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL
# The base of every link in an e-mail. Unset, it is the local web server on PORT (the port
# gunicorn and `make demo PORT=8100` serve on), so a demo on another port mails working links.
PUBLIC_URL = (env_str("PUBLIC_URL") or f"http://localhost:{env_int('PORT', 8000)}").rstrip("/")
INVITATION_VALID_DAYS = env_int("INVITATION_VALID_DAYS", 7)
EMAIL_VERIFICATION_VALID_HOURS = env_int("EMAIL_VERIFICATION_VALID_HOURS", 48)
# How long a digest's figures and charts are shared by the digests of one scope and period.
DIGEST_FIGURES_CACHE_SECONDS = env_int("DIGEST_FIGURES_CACHE_SECONDS", 600)
# Sign-ups (and resent verification links) per client IP, DRF's "N/period" format.
SIGNUP_RATE_LIMIT = env_str("SIGNUP_RATE_LIMIT", "10/hour")

# --- I18N / time ----------------------------------------------------------------------------
LANGUAGE_CODE = "en-us"
# The languages the product speaks (apps.accounts.models.Language): Accept-Language picks
# among these only (zh-CN is zh-hans).
LANGUAGES = [("en", "English"), ("zh-hans", "简体中文")]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- Static files ---------------------------------------------------------------------------
STATIC_URL = "/static/"
STATIC_ROOT = VAR_DIR / "staticfiles"
STATIC_ROOT.mkdir(exist_ok=True)
STATICFILES_DIRS = [FRONTEND_DIST_DIR] if FRONTEND_DIST_DIR.is_dir() else []
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True

# --- REST framework -------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "apps.api.authentication.ApiKeyAuthentication",
        "apps.api.authentication.CsrfSessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["apps.api.permissions.IsOrganizationMember"],
    "DEFAULT_PAGINATION_CLASS": "apps.api.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_FILTER_BACKENDS": ["apps.api.filters.StrictFilterBackend"],
    "DEFAULT_SCHEMA_CLASS": "apps.api.schema.ApiAutoSchema",
    "EXCEPTION_HANDLER": "apps.api.exceptions.exception_handler",
    # Writes take JSON only: a form-encoded or multipart body is a 415, not a second dialect with
    # other coercions (a form's "tag_values=x" would be a list). No endpoint takes a file; the
    # digest's one-click unsubscribe (RFC 8058, a form POST) reads its token from the URL only.
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    # Per API key / person / anonymous address (API_RATE_LIMIT below); 429 with Retry-After.
    "DEFAULT_THROTTLE_CLASSES": ["apps.api.throttling.ClientRateThrottle"],
}
# Requests per API key (or signed-in person, or anonymous address): "<n>/<sec|min|hour|day>".
API_RATE_LIMIT = env_str("API_RATE_LIMIT", "1200/min")
# Agent batches per ingest key (one key may serve the fleet: 10,000 agents at a batch a minute).
INGEST_RATE_LIMIT = env_str("INGEST_RATE_LIMIT", "12000/min")
SPECTACULAR_SETTINGS = {
    "TITLE": "GPU Ledger API",
    "DESCRIPTION": "GPU cost and utilization analytics for Tencent Cloud. "
    "Authenticate with a session (browser) or `Authorization: Bearer <api key>`.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # Operation ids are the path after /api/ (v1_instances_list, ...): stated, not guessed from
    # the common prefix of all routes, which /metrics (outside /api/) would shorten to "/".
    "SCHEMA_PATH_PREFIX": r"/api/",
    # Several models have a "kind" or "status": the recommendations' get names of their own.
    "ENUM_NAME_OVERRIDES": {
        "RecommendationKindEnum": "apps.recommendations.rules.KINDS",
        "RecommendationStatusEnum": "apps.recommendations.models.Status",
        # The phases of a segment, of its unseparated pairs, of the evidence summary: one enum.
        "PhaseEnum": "apps.analysis.serializers.PHASE_CHOICES",
        "CurrencyEnum": "apps.accounts.models.Currency",
        "UtilizationScopeEnum": "apps.costs.utilization.SCOPES",
        # Why minutes have no phase, beside why money has no project (which keeps its name).
        "NoDataReasonEnum": "apps.analysis.no_data.REASON_CHOICES",
        "ReasonEnum": "apps.billing.selectors.UnallocatedReason",
        # Keeps the API key scope's enum name now that /utilization has a "scope" too.
        "ScopeEnum": "apps.accounts.models.ApiKeyScope",
        # A recommendation threshold's rule and type: "RuleEnum"/"TypeEnum" would say too little.
        "ThresholdRuleEnum": "apps.recommendations.rules.THRESHOLD_RULES",
        "ThresholdTypeEnum": "apps.recommendations.rules.THRESHOLD_TYPES",
        # The audit log's actions, beside the recommendations' (which keep "ActionEnum").
        "AuditActionEnum": "apps.accounts.audit.actions.ACTION_CODES",
        "ActionEnum": "apps.recommendations.serializers.ACTIONS",
        # What a project-level finding does to a member, beside a membership's "RoleEnum".
        "MemberRoleEnum": "apps.recommendations.serializers.MEMBER_ROLES",
        "RoleEnum": "apps.accounts.roles.Role",
        # A recommendation's place in its instance's plan, beside those two.
        "RecommendationRoleEnum": "apps.recommendations.rules.ROLES",
        # The cost basis (billed / amortized), beside a budget threshold's (actual / forecast).
        "CostBasisEnum": "apps.costs.bases.BASES",
        "BasisEnum": ["actual", "forecast"],
        # Automation's: an action's kind and status, a plan's status, their reason codes.
        "AutomationActionKindEnum": "apps.automation.models.ActionKind",
        "AutomationActionStatusEnum": "apps.automation.models.ActionStatus",
        "AutomationPlanStatusEnum": "apps.automation.models.PlanStatus",
        "AutomationReasonEnum": "apps.automation.serializers.ACTION_REASON_CHOICES",
        "AutomationUnavailableReasonEnum": "apps.automation.serializers.UNAVAILABLE_CHOICES",
    },
}

# --- Logging --------------------------------------------------------------------------------
LOG_LEVEL = env_str("LOG_LEVEL", "INFO")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"redact_secrets": {"()": "apps.core.logging.RedactSecretsFilter"}},
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "plain",
            "filters": ["redact_secrets"],
        }
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        # runserver's request lines: Django's default gives them a handler of their own, which
        # would write one-time links' tokens unredacted (apps/core/logging.py).
        "django.server": {"handlers": ["console"], "level": "INFO", "propagate": False},
    },
}

# --- Cloud sync -----------------------------------------------------------------------------
# How far back a new account's metrics and bills are read, and the Cloud Monitor request
# limits (documented as 10 instances and 1,440 points per GetMonitorData; some pages say more).
SYNC_BACKFILL_DAYS = env_int("SYNC_BACKFILL_DAYS", 30)
SYNC_LEASE_SECONDS = env_int("SYNC_LEASE_SECONDS", 900)
MONITOR_MAX_INSTANCES = env_int("MONITOR_MAX_INSTANCES", 10)
MONITOR_MAX_POINTS = env_int("MONITOR_MAX_POINTS", 1440)
# Each Tencent Cloud call retries transient errors (throttled, InternalError, HTTP 5xx,
# network) with exponential backoff and full jitter from the base, each wait at most the max,
# for at most the budget: a time, because threads sharing an account's requests can see many
# faults in a row on a bad day. A throttled answer cuts the account's rate for that API to
# SLOWDOWN of its current value for every worker; it doubles back every RECOVERY seconds.
TENCENT_RETRY_BUDGET_SECONDS = float(env_int("TENCENT_RETRY_BUDGET_SECONDS", 120))
TENCENT_RETRY_BASE_SECONDS = env_int("TENCENT_RETRY_BASE_MS", 50) / 1000
TENCENT_RETRY_MAX_DELAY_SECONDS = env_int("TENCENT_RETRY_MAX_DELAY_MS", 8000) / 1000
TENCENT_THROTTLE_SLOWDOWN = env_int("TENCENT_THROTTLE_SLOWDOWN_PCT", 80) / 100
TENCENT_THROTTLE_RECOVERY_SECONDS = env_int("TENCENT_THROTTLE_RECOVERY_MS", 1000) / 1000
if not 0 < TENCENT_THROTTLE_SLOWDOWN <= 1 or TENCENT_THROTTLE_RECOVERY_SECONDS <= 0:
    raise ImproperlyConfigured(
        "TENCENT_THROTTLE_SLOWDOWN_PCT must be 1-100 and TENCENT_THROTTLE_RECOVERY_MS positive"
    )

# --- Metric storage -------------------------------------------------------------------------
# Raw per-minute days are kept this long (Cloud Monitor keeps minute data ~31 days); the
# hourly and daily rollups are kept for good.
METRICS_RAW_RETENTION_DAYS = env_int("METRICS_RAW_RETENTION_DAYS", 35)
