/**
 * Words and rules of "Run it for me" (issue 22) that render nothing: which recommendations it is offered on,
 * why it cannot run (per the API's code, in the reader's language), the next stops and starts as rows (times
 * in the organization's timezone, with the weekday), the plan's weeks with their money, and the skip dates.
 */
import type {
  AutomationAction,
  AutomationActionKind,
  AutomationActionReason,
  AutomationActionStatus,
  AutomationNextAction,
  AutomationPlanStatus,
  AutomationUnavailableReason,
  AutomationWeek,
  RecommendationKind,
  UserRef,
} from '../../api/types';
import { isCalendarDay } from '../../dateRange';
import { formatDateTime, formatDay, formatWeekdayDateTime } from '../../format';
import { i18n, translatedLabels } from '../../i18n';
import { formatMoney } from '../../money';

/**
 * The kinds GPU Ledger can carry out by stopping and starting instances: stop an idle one (memory held or
 * not), a day/night schedule, a night downshift (fewer instances at night). Others never show the panel.
 */
export const AUTOMATABLE_KINDS: readonly RecommendationKind[] = ['stop_idle', 'idle_held', 'schedule', 'night_downshift'];

export function isAutomatable(kind: string): boolean {
  return (AUTOMATABLE_KINDS as readonly string[]).includes(kind);
}

/** Stopping an instance whose GPU memory is held loses what is in it: the owner confirms that first. */
export function needsMemoryConfirmation(kind: string): boolean {
  return kind === 'idle_held';
}

export const UNAVAILABLE_REASONS: readonly AutomationUnavailableReason[] = [
  'not_accepted',
  'kind_not_automatable',
  'no_cloud_account',
  'read_only_credential',
  'automation_disabled',
  'automation_paused',
];
const UNAVAILABLE_TEXT = translatedLabels(UNAVAILABLE_REASONS, 'automation.unavailable');

/**
 * Why it cannot run, in plain words; a code this dashboard does not know yet gets the server's own words
 * (in the request's language), else a general sentence.
 */
export function unavailableText(reason: string | null | undefined, serverText?: string | null): string {
  return (UNAVAILABLE_TEXT as Record<string, string>)[reason ?? ''] ?? (serverText || i18n.t('automation.unavailableOther'));
}

/** Where the reader fixes it: the cloud account's settings for a credential or a switch, the pause, or nowhere. */
export function unavailableLink(reason: string | null | undefined): 'cloud-accounts' | 'automation-settings' | null {
  if (reason === 'read_only_credential' || reason === 'automation_disabled' || reason === 'no_cloud_account') return 'cloud-accounts';
  if (reason === 'automation_paused') return 'automation-settings';
  return null;
}

const ACTION_KINDS: readonly AutomationActionKind[] = ['stop', 'start'];
const ACTION_KIND_LABELS = translatedLabels(ACTION_KINDS, 'automation.kind');

export function actionKindLabel(kind: string): string {
  return (ACTION_KIND_LABELS as Record<string, string>)[kind] ?? kind;
}

const PLAN_STATUSES: readonly AutomationPlanStatus[] = ['active', 'paused', 'ended'];
const PLAN_STATUS_LABELS = translatedLabels(PLAN_STATUSES, 'automation.status');

export function planStatusLabel(status: string): string {
  return (PLAN_STATUS_LABELS as Record<string, string>)[status] ?? status;
}

/** The statuses of a stop or start (apps/automation/models.py ActionStatus); an unknown one is shown as sent. */
export const ACTION_STATUSES: readonly AutomationActionStatus[] = [
  'pending',
  'claimed',
  'sent',
  'confirmed',
  'skipped',
  'failed',
  'cancelled',
];
const ACTION_STATUS_LABELS = translatedLabels(ACTION_STATUSES, 'automation.actionStatus');

export function actionStatusLabel(status: string): string {
  return (ACTION_STATUS_LABELS as Record<string, string>)[status] ?? status;
}

/** Why a stop or start went as it did (apps/automation/reasons.py ACTION_REASONS). */
export const ACTION_REASONS: readonly Exclude<AutomationActionReason, ''>[] = [
  'opted_out',
  'no_recent_metrics',
  'busy_gpu_util',
  'busy_gpu_mem',
  'automation_paused',
  'automation_disabled',
  'read_only_credential',
  'plan_not_active',
  'too_late',
  'already_in_state',
  'capacity_sold_out',
  'not_authorized',
  'instance_not_found',
  'cloud_error',
  'retries_exhausted',
  'not_confirmed',
];
const ACTION_REASON_LABELS = translatedLabels(ACTION_REASONS, 'automation.reason');

/** The reason in the reader's language; a code the dashboard does not know yet gets the server's words. */
export function actionReasonText(action: Pick<AutomationAction, 'reason' | 'reason_text'>): string {
  if (!action.reason) return '';
  return (ACTION_REASON_LABELS as Record<string, string>)[action.reason] ?? (action.reason_text || action.reason);
}

export interface NextActionRow {
  key: string;
  /** The moment in the organization's timezone with its weekday. */
  when: string;
  kind: AutomationActionKind | string;
  kindLabel: string;
  instance: string;
}

/** The next stops and starts in time order, each worded for the table. */
export function nextActionRows(actions: readonly AutomationNextAction[], timeZone: string, locale?: string): NextActionRow[] {
  return [...actions]
    .sort((a, b) => new Date(a.at).getTime() - new Date(b.at).getTime())
    .map((action, i) => ({
      key: `${action.at}-${action.instance_id}-${action.kind}-${i}`,
      when: formatWeekdayDateTime(action.at, timeZone, locale),
      kind: action.kind,
      kindLabel: actionKindLabel(action.kind),
      instance: action.instance_name || String(action.instance_id),
    }));
}

export interface WeekRow {
  key: string;
  week: string;
  promised: string;
  realised: string;
  stoppedHours: string;
}

/** The plan's weeks, oldest first, the money in the reader's language ("—" where there is no figure yet). */
export function weekRows(weeks: readonly AutomationWeek[], locale?: string): WeekRow[] {
  return [...weeks]
    .sort((a, b) => a.week_start.localeCompare(b.week_start))
    .map((week) => ({
      key: week.week_start,
      week: i18n.t('automation.weekOf', { day: formatDay(week.week_start.slice(0, 10), locale) }),
      promised: formatMoney(week.promised, week.currency, locale),
      realised: formatMoney(week.realised, week.currency, locale),
      stoppedHours: String(week.stopped_hours),
    }));
}

/** When a stop or start of the history was due and when it finished (or was sent, while unconfirmed). */
export function historyTimes(action: AutomationAction, timeZone: string, locale?: string): { due: string; done: string } {
  const done = action.finished_at ?? action.sent_at;
  return {
    due: formatDateTime(action.due_at, timeZone, locale),
    done: done ? formatDateTime(done, timeZone, locale) : '—',
  };
}

/** Who turned the plan on, as the page names them (their name, else their e-mail). */
export function personName(user: UserRef | null): string | null {
  if (!user) return null;
  return user.name || user.email;
}

/**
 * The skip dates with `day` added (in order, once each). Null when `day` is no calendar day or is before
 * `today` (a day already gone cannot be skipped).
 */
export function addSkipDate(dates: readonly string[], day: string, today: string): string[] | null {
  if (!isCalendarDay(day) || day < today) return null;
  return [...new Set([...dates, day])].sort();
}

export function removeSkipDate(dates: readonly string[], day: string): string[] {
  return dates.filter((d) => d !== day);
}
