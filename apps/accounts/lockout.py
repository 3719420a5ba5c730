"""Sign-in lock-outs, and the 429 they answer with (``Retry-After`` in seconds).

Two limits, both needed:

- django-axes locks an (e-mail, client address) pair after ``LOGIN_FAILURE_LIMIT`` wrong
  passwords, for 15 minutes: one typist's mistakes cost only them.
- The per-account back-off here counts wrong passwords at an e-mail address from *every*
  address, since credential stuffing spreads its guesses over many (40 addresses x 4 guesses
  stay under axes' limit at each). After ``LOGIN_ACCOUNT_FAILURE_LIMIT`` the account locks for
  ``LOGIN_BACKOFF_SECONDS``; each further wrong password once a lock is over locks it again
  for twice as long, up to ``LOGIN_BACKOFF_MAX_SECONDS``. While locked, no password is even
  checked, the right one included, from any address. A sign-in that gets through, or a day
  without a failure, forgets it all. The address typed is counted whether an account has it or
  not, so the answers tell nobody which addresses have accounts; an account's owner gets a
  notice by e-mail at each lock-out, and the audit log records it.

The refusal is an authentication backend (``AccountLockoutBackend``, after axes' in
``AUTHENTICATION_BACKENDS``), so every way in is covered: the API's sign-in and the admin site.
"""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

from axes.helpers import get_cool_off
from django.conf import settings
from django.contrib.auth.signals import user_logged_in, user_login_failed
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.dispatch import receiver
from django.http import HttpRequest, JsonResponse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from apps.accounts.models import SignInThrottle, User

# A day without a wrong password at an address forgets its failures and lock-outs.
FORGET_AFTER = dt.timedelta(days=1)

# Marks on the request: the end of the account's lock-out (refused, or locked by this attempt);
# refused without checking the password; the password was checked by the backends after ours.
LOCKED_UNTIL_ATTR = "account_locked_until"
REFUSED_ATTR = "account_lockout_refused"
CHECKED_ATTR = "account_password_checked"


def _key(email: str) -> str:
    return email.strip().lower()[:320]


def backoff_seconds(lockouts: int) -> int:
    """How long the ``lockouts``-th lock-out in a row lasts: doubling, up to the maximum."""
    doubled = settings.LOGIN_BACKOFF_SECONDS * 2 ** min(max(lockouts - 1, 0), 40)
    return int(min(doubled, settings.LOGIN_BACKOFF_MAX_SECONDS))


def account_locked_until(email: str) -> dt.datetime | None:
    """The end of the lock-out of ``email``'s sign-ins, or None when it may sign in."""
    return (
        SignInThrottle.objects.filter(email=_key(email), locked_until__gt=timezone.now())
        .values_list("locked_until", flat=True)
        .first()
    )


class AccountLockoutBackend:
    """Refuses a sign-in at a locked account before any password is checked.

    Only ``authenticate``: without ``get_user`` it is never the backend a session is recorded
    with (``login()`` and ``force_login`` pick the first backend that has one).
    """

    def authenticate(
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> None:
        email = kwargs.get("email") or username
        if request is None or not email:
            return None
        until = account_locked_until(str(email))
        if until is not None:
            setattr(request, LOCKED_UNTIL_ATTR, until)
            setattr(request, REFUSED_ATTR, True)
            # Stops authenticate() here (the backends after this one never see the password),
            # and makes it send user_login_failed, which the audit log records.
            raise PermissionDenied
        setattr(request, CHECKED_ATTR, True)
        return None


def failure_record(*, email: str, request: HttpRequest | None) -> dt.datetime | None:
    """Count a wrong password at ``email``; returns the end of the lock-out it starts, if any."""
    now = timezone.now()
    key = _key(email)
    with transaction.atomic():
        row, created = SignInThrottle.objects.select_for_update().get_or_create(
            email=key, defaults={"last_failure_at": now}
        )
        if created:
            # The table holds one day's addresses, whatever a sprayer types.
            SignInThrottle.objects.filter(last_failure_at__lt=now - FORGET_AFTER).delete()
        elif now - row.last_failure_at > FORGET_AFTER:
            row.failures = row.lockouts = 0
        row.failures += 1
        row.last_failure_at = now
        locks = row.lockouts > 0 or row.failures >= settings.LOGIN_ACCOUNT_FAILURE_LIMIT
        seconds = 0
        if locks:
            row.lockouts += 1
            seconds = backoff_seconds(row.lockouts)
            row.locked_until = now + dt.timedelta(seconds=seconds)
        row.save()
        if not locks:
            return None
        _locked_out(request, row, seconds)
    return row.locked_until


def _locked_out(request: HttpRequest | None, row: SignInThrottle, seconds: int) -> None:
    from apps.accounts.audit import actions
    from apps.accounts.audit.receivers import sign_in_record
    from apps.accounts.tasks import send_lockout_notice_email

    if request is not None:
        setattr(request, LOCKED_UNTIL_ATTR, row.locked_until)
    sign_in_record(
        action=actions.SIGN_IN_LOCKED_OUT,
        request=request,
        email=row.email,
        details={
            "email": row.email,
            "scope": "account",
            "failures": row.failures,
            "seconds": seconds,
        },
    )
    user = User.objects.filter(email=row.email).first()
    if user is not None and row.locked_until is not None:
        until = row.locked_until.isoformat()
        failures = row.failures
        transaction.on_commit(lambda: send_lockout_notice_email.delay(user.pk, failures, until))


@receiver(user_login_failed, dispatch_uid="lockout_user_login_failed")
def _sign_in_failed(
    sender: Any, credentials: dict[str, Any], request: HttpRequest | None = None, **kwargs: Any
) -> None:
    # Only a password that was checked counts: not one refused by axes (before our backend
    # ran) or by this lock-out.
    if request is None or not getattr(request, CHECKED_ATTR, False):
        return
    if getattr(request, REFUSED_ATTR, False):
        return
    email = str(credentials.get("email") or credentials.get("username") or "")
    if email:
        failure_record(email=email, request=request)


@receiver(user_logged_in, dispatch_uid="lockout_user_logged_in")
def _signed_in(sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any) -> None:
    if isinstance(user, User):
        SignInThrottle.objects.filter(email=_key(user.email)).delete()


def retry_after_seconds(request: HttpRequest) -> int:
    """When ``request``'s sign-in may be tried again: the later of the account's back-off and
    (when axes locked the pair) axes' cool-off, which each refused attempt restarts."""
    seconds = 0.0
    until = getattr(request, LOCKED_UNTIL_ATTR, None)
    if until is not None:
        seconds = (until - timezone.now()).total_seconds()
    if getattr(request, "axes_locked_out", False):
        cool_off = get_cool_off(request)
        if cool_off is not None:
            seconds = max(seconds, cool_off.total_seconds())
    return max(1, math.ceil(seconds))


def _wait_words(seconds: int) -> str:
    minutes = math.ceil(seconds / 60)
    return ngettext("a minute", "%(count)s minutes", minutes) % {"count": minutes}


def lockout_response(request: HttpRequest, *args: object, **kwargs: object) -> JsonResponse:
    """The 429 of a refused sign-in, in the API's one error format, with ``Retry-After``;
    django-axes' ``AXES_LOCKOUT_CALLABLE`` too."""
    seconds = retry_after_seconds(request)
    response = JsonResponse(
        {
            "error": {
                "code": "locked_out",
                "message": _("Too many failed sign-in attempts. Try again in %(wait)s.")
                % {"wait": _wait_words(seconds)},
                "fields": {},
            }
        },
        status=429,
    )
    response["Retry-After"] = str(seconds)
    return response
