"""Queue names. A task picks its queue by name; operations scale each queue's workers."""

DEFAULT = "default"
SYNC = "sync"  # talks to Tencent Cloud; bounded by the cloud's rate limits
ANALYSIS = "analysis"  # CPU-heavy numpy work
EMAIL = "email"  # talks to the mail server

ALL = (DEFAULT, SYNC, ANALYSIS, EMAIL)
