"""Billing's signals, for the apps above it that derive data from bill lines."""

from django.dispatch import Signal

# Sent with ``organization`` and ``months`` (bill months "yyyy-mm" whose lines were read and
# may have changed, or None for any month: e.g. lines moved to other projects) after the
# change is written.
bill_lines_changed = Signal()
