/**
 * "Run it for me" (issue 22): beside a schedule's, a night downshift's or a stop-idle's commands, GPU Ledger
 * stops and starts the instances itself, with the cloud account's write credential. The panel says why it
 * cannot when it cannot, lets an owner or admin turn it on, and shows a plan's next stops and starts (in
 * the organization's timezone), its skip dates, pause/resume, turning it off, its weeks (realised against
 * promised) and the history of what was done.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { ApiError } from '../../api/client';
import { automationApi } from '../../api/endpoints';
import type {
  AutomationAction,
  AutomationNextAction,
  AutomationPlanChanges,
  AutomationPlanInput,
  Org,
  Recommendation,
  RecommendationAutomation,
} from '../../api/types';
import { FormField } from '../../components/FormField';
import { ErrorBanner, FormErrorBanner, Pagination, Spinner } from '../../components/ui';
import { queryKeys } from '../../data/keys';
import { todayIn } from '../../dateRange';
import { formatDateTime, formatDay } from '../../format';
import { toApiError, useApiData, usePaginatedList } from '../../hooks';
import { canManageOrg } from '../settings/permissions';
import {
  actionKindLabel,
  actionReasonText,
  actionStatusLabel,
  addSkipDate,
  historyTimes,
  isAutomatable,
  needsMemoryConfirmation,
  nextActionRows,
  personName,
  planStatusLabel,
  removeSkipDate,
  unavailableLink,
  unavailableText,
  weekRows,
} from './automation';

const PLAN_TONES: Record<string, string> = { active: 'success', paused: 'warning', ended: 'muted' };

/** The panel, on the kinds GPU Ledger can run; nothing on the others. */
export function AutomationPanel({ rec, org }: { rec: Recommendation; org: Org }) {
  if (!isAutomatable(rec.kind)) return null;
  return <Panel rec={rec} org={org} />;
}

/** The query key of one recommendation's automation: its status is in it, so accepting it asks again. */
const automationKey = (rec: Recommendation) => [...queryKeys.automation(rec.id), rec.status] as const;

function Panel({ rec, org }: { rec: Recommendation; org: Org }) {
  const { t } = useTranslation();
  const automation = useApiData(automationKey(rec), (signal) => automationApi.get(rec.id, signal));
  return (
    <section className="card automation" aria-labelledby="automation-title" data-testid="automation-panel">
      <h2 id="automation-title" className="card__title">
        {t('automation.title')}
      </h2>
      <p className="muted small">{t('automation.intro')}</p>
      <ErrorBanner error={automation.error} onRetry={automation.reload} />
      {automation.loading && <Spinner label={t('automation.loading')} />}
      {automation.data && <PanelBody rec={rec} org={org} automation={automation.data} />}
    </section>
  );
}

/** Runs a change of the plan and puts the answer (or, without one, a fresh read) in the cache. */
function usePlanChange(rec: Recommendation) {
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const run = async (change: () => Promise<RecommendationAutomation | void | undefined>): Promise<boolean> => {
    setBusy(true);
    setError(null);
    try {
      const answer = await change();
      if (answer && typeof answer === 'object' && 'available' in answer) queryClient.setQueryData(automationKey(rec), answer);
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.automation(rec.id) }),
        queryClient.invalidateQueries({ queryKey: queryKeys.automationActions(rec.id) }),
        // Turning it on, pausing, resuming and ending are events of the recommendation's history.
        queryClient.invalidateQueries({ queryKey: queryKeys.recommendation(rec.id) }),
      ]);
      return true;
    } catch (err) {
      setError(toApiError(err));
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run, clearError: () => setError(null) };
}

function PanelBody({ rec, org, automation }: { rec: Recommendation; org: Org; automation: RecommendationAutomation }) {
  const { t } = useTranslation();
  const canManage = canManageOrg(org.role);
  const { plan } = automation;
  const live = plan !== null && plan.status !== 'ended';
  return (
    <>
      {!automation.available && (
        <Unavailable reason={automation.unavailable_reason} serverText={automation.unavailable_reason_text} canManage={canManage} />
      )}
      {live ? (
        <PlanView rec={rec} org={org} automation={automation} canManage={canManage} />
      ) : (
        <>
          {plan?.status === 'ended' && (
            <p className="muted" data-testid="automation-ended">
              {t('automation.ended', { when: formatDateTime(plan.ended_at ?? plan.created_at, org.timezone) })}
            </p>
          )}
          {automation.available &&
            (canManage ? (
              <EnableForm rec={rec} timeZone={org.timezone} preview={automation.next_actions} />
            ) : (
              <p className="muted" data-testid="automation-who">
                {t('automation.whoCanEnable')}
              </p>
            ))}
        </>
      )}
      {automation.weeks.length > 0 && <WeeksTable automation={automation} />}
      {plan !== null && <ActionHistory rec={rec} timeZone={org.timezone} />}
    </>
  );
}

function Unavailable({ reason, serverText, canManage }: { reason: string | null; serverText: string | null; canManage: boolean }) {
  const { t } = useTranslation();
  const link = unavailableLink(reason);
  return (
    <div className="alert alert--info" role="status" data-testid="automation-unavailable" data-reason={reason ?? ''}>
      <span>{unavailableText(reason, serverText)}</span>{' '}
      {canManage && link === 'cloud-accounts' && <Link to="/settings/cloud-accounts">{t('automation.toCloudAccounts')}</Link>}
      {canManage && link === 'automation-settings' && (
        <Link to="/settings/recommendations">{t('automation.toAutomationSettings')}</Link>
      )}
    </div>
  );
}

/** Skip dates as chips, each with its remove button (owners and admins), and a date input to add one. */
function SkipDates({
  dates,
  timeZone,
  canEdit,
  busy,
  onChange,
  idPrefix,
}: {
  dates: string[];
  timeZone: string;
  canEdit: boolean;
  busy: boolean;
  onChange: (dates: string[]) => void;
  idPrefix: string;
}) {
  const { t } = useTranslation();
  const [day, setDay] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const today = todayIn(timeZone);
  const add = () => {
    const next = addSkipDate(dates, day, today);
    if (!next) {
      setProblem(t('automation.skip.invalid'));
      return;
    }
    setProblem(undefined);
    setDay('');
    onChange(next);
  };
  return (
    <div className="automation__skip" data-testid="automation-skip-dates">
      <h3 className="subsection-title">{t('automation.skip.title')}</h3>
      {dates.length === 0 ? (
        <p className="muted small">{t('automation.skip.none')}</p>
      ) : (
        <ul className="chips">
          {dates.map((d) => (
            <li key={d} className="chip" data-skip-date={d}>
              {formatDay(d)}
              {canEdit && (
                <button
                  type="button"
                  className="btn btn--small btn--ghost"
                  disabled={busy}
                  data-action="automation-skip-remove"
                  aria-label={t('automation.skip.removeLabel', { day: formatDay(d) })}
                  onClick={() => onChange(removeSkipDate(dates, d))}
                >
                  ×
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {canEdit && (
        <div className="inline-form">
          <FormField id={`${idPrefix}-skip`} label={t('automation.skip.add')} hint={t('automation.skip.hint', { timeZone })} error={problem}>
            {(control) => (
              <input
                {...control}
                type="date"
                min={today}
                value={day}
                data-testid="automation-skip-input"
                onChange={(e) => setDay(e.target.value)}
              />
            )}
          </FormField>
          <div className="field field--button">
            <button type="button" className="btn btn--small" disabled={busy || !day} data-action="automation-skip-add" onClick={add}>
              {t('automation.skip.addButton')}
            </button>
          </div>
        </div>
      )}
    </div>
  );
}

function EnableForm({ rec, timeZone, preview }: { rec: Recommendation; timeZone: string; preview: AutomationNextAction[] }) {
  const { t } = useTranslation();
  const change = usePlanChange(rec);
  const [skipDates, setSkipDates] = useState<string[]>([]);
  const [grace, setGrace] = useState('');
  const [memoryConfirmed, setMemoryConfirmed] = useState(false);
  const [localError, setLocalError] = useState<{ field: string; message: string } | null>(null);
  // The server may ask for the memory confirmation on a kind the dashboard did not expect.
  const askMemory = needsMemoryConfirmation(rec.kind) || change.error?.code === 'memory_held_not_confirmed';
  const stopIdle = rec.kind === 'stop_idle' || rec.kind === 'idle_held';
  const fieldError = (field: string) => (localError?.field === field ? localError.message : change.error?.field(field));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setLocalError(null);
    const input: AutomationPlanInput = { skip_dates: skipDates };
    if (grace.trim()) {
      const hours = Number(grace.trim());
      if (!Number.isInteger(hours) || hours < 0 || hours > 336) {
        setLocalError({ field: 'grace_hours', message: t('automation.enable.graceInvalid') });
        return;
      }
      input.grace_hours = hours;
    }
    if (askMemory) {
      if (!memoryConfirmed) {
        setLocalError({ field: 'memory_held_confirmed', message: t('automation.enable.memoryRequired') });
        return;
      }
      input.memory_held_confirmed = true;
    }
    void change.run(() => automationApi.enable(rec.id, input));
  };

  const idPrefix = `automation-${rec.id}`;
  return (
    <form className="automation__enable" onSubmit={submit} noValidate aria-label={t('automation.enable.form')}>
      <p>{t('automation.enable.explain')}</p>
      {preview.length > 0 && (
        <>
          <h3 className="subsection-title">{t('automation.next.preview')}</h3>
          <NextActionsTable actions={preview} timeZone={timeZone} preview />
        </>
      )}
      <SkipDates dates={skipDates} timeZone={timeZone} canEdit busy={change.busy} onChange={setSkipDates} idPrefix={idPrefix} />
      {stopIdle && (
      <div className="form-grid">
        <FormField
          id={`${idPrefix}-grace`}
          label={t('automation.enable.grace')}
          hint={t('automation.enable.graceHint')}
          error={fieldError('grace_hours')}
        >
          {(control) => (
            <input
              {...control}
              type="number"
              min={0}
              max={336}
              step={1}
              inputMode="numeric"
              placeholder="24"
              value={grace}
              onChange={(e) => setGrace(e.target.value)}
            />
          )}
        </FormField>
      </div>
      )}
      {askMemory && (
        <div className="field">
          <label className="check">
            <input
              type="checkbox"
              checked={memoryConfirmed}
              data-testid="automation-memory-confirm"
              onChange={(e) => setMemoryConfirmed(e.target.checked)}
            />
            <span>{t('automation.enable.memory')}</span>
          </label>
          {fieldError('memory_held_confirmed') && <div className="field-error">{fieldError('memory_held_confirmed')}</div>}
        </div>
      )}
      <FormErrorBanner error={change.error} inlineFields={['grace_hours', 'memory_held_confirmed', 'skip_dates']} />
      {change.error?.field('skip_dates') && <div className="field-error">{change.error.field('skip_dates')}</div>}
      <div className="form-actions">
        <button type="submit" className="btn btn--primary" disabled={change.busy} data-action="automation-enable">
          {change.busy ? t('automation.enable.enabling') : t('automation.enable.button')}
        </button>
      </div>
    </form>
  );
}

function PlanView({
  rec,
  org,
  automation,
  canManage,
}: {
  rec: Recommendation;
  org: Org;
  automation: RecommendationAutomation;
  canManage: boolean;
}) {
  const { t } = useTranslation();
  const plan = automation.plan!;
  const change = usePlanChange(rec);
  const [confirmingOff, setConfirmingOff] = useState(false);
  const update = (changes: AutomationPlanChanges) => void change.run(() => automationApi.update(rec.id, changes));
  const paused = plan.status === 'paused';
  return (
    <div className="automation__plan" data-plan-status={plan.status}>
      <p>
        <span className={`badge badge--${PLAN_TONES[plan.status] ?? 'muted'}`} data-testid="automation-status" data-status={plan.status}>
          {planStatusLabel(plan.status)}
        </span>{' '}
        <span className="muted small">
          {plan.created_by
            ? t('automation.since', { when: formatDateTime(plan.created_at, org.timezone), who: personName(plan.created_by) })
            : t('automation.sinceNoOne', { when: formatDateTime(plan.created_at, org.timezone) })}
        </span>
      </p>
      {plan.kind === 'stop_idle' && (
        <p className="muted small" data-testid="automation-grace">
          {plan.told_at
            ? t('automation.toldAt', { when: formatDateTime(plan.told_at, org.timezone), count: plan.grace_hours })
            : t('automation.graceIs', { count: plan.grace_hours })}
        </p>
      )}

      <h3 className="subsection-title">{t('automation.next.title')}</h3>
      {paused ? (
        <p className="muted" data-testid="automation-paused-note">
          {t('automation.next.paused')}
        </p>
      ) : (
        <NextActionsTable actions={automation.next_actions} timeZone={org.timezone} />
      )}

      <SkipDates
        dates={plan.skip_dates}
        timeZone={org.timezone}
        canEdit={canManage}
        busy={change.busy}
        onChange={(skip_dates) => update({ skip_dates })}
        idPrefix={`automation-${rec.id}-plan`}
      />

      <FormErrorBanner error={change.error} />
      {canManage && (
        <div className="form-actions">
          {paused ? (
            <button type="button" className="btn" disabled={change.busy} data-action="automation-resume" onClick={() => update({ status: 'active' })}>
              {t('automation.resume')}
            </button>
          ) : (
            <button type="button" className="btn" disabled={change.busy} data-action="automation-pause" onClick={() => update({ status: 'paused' })}>
              {t('automation.pause')}
            </button>
          )}
          {confirmingOff ? (
            <span className="confirm" data-testid="automation-off-confirm">
              <span>{t('automation.offQuestion')}</span>
              <button
                type="button"
                className="btn btn--small btn--danger"
                disabled={change.busy}
                data-action="automation-disable-confirm"
                onClick={() => void change.run(() => automationApi.disable(rec.id)).then((ok) => ok && setConfirmingOff(false))}
              >
                {t('automation.offConfirm')}
              </button>
              <button type="button" className="btn btn--small" onClick={() => setConfirmingOff(false)}>
                {t('common.cancel')}
              </button>
            </span>
          ) : (
            <button
              type="button"
              className="btn btn--ghost-danger"
              disabled={change.busy}
              data-action="automation-disable"
              onClick={() => setConfirmingOff(true)}
            >
              {t('automation.off')}
            </button>
          )}
        </div>
      )}
    </div>
  );
}

/** The next stops and starts (or, before it is turned on, what it would do), times in the organization's timezone. */
function NextActionsTable({ actions, timeZone, preview = false }: { actions: AutomationNextAction[]; timeZone: string; preview?: boolean }) {
  const { t } = useTranslation();
  const rows = nextActionRows(actions, timeZone);
  return (
    <table
      className="table table--compact"
      aria-label={preview ? t('automation.next.preview') : t('automation.next.title')}
      data-testid={preview ? 'automation-preview' : 'automation-next-actions'}
    >
      <thead>
        <tr>
          <th>{t('automation.next.when', { timeZone })}</th>
          <th>{t('automation.next.what')}</th>
          <th>{t('automation.next.instance')}</th>
        </tr>
      </thead>
      <tbody>
        {rows.length === 0 && (
          <tr>
            <td colSpan={3} className="table__empty">
              {t('automation.next.none')}
            </td>
          </tr>
        )}
        {rows.map((row) => (
          <tr key={row.key} data-kind={row.kind}>
            <td>{row.when}</td>
            <td>
              <span className={`badge badge--${row.kind === 'stop' ? 'warning' : 'info'}`}>{row.kindLabel}</span>
            </td>
            <td>{row.instance}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function WeeksTable({ automation }: { automation: RecommendationAutomation }) {
  const { t } = useTranslation();
  const rows = weekRows(automation.weeks);
  return (
    <>
      <h3 className="subsection-title">{t('automation.weeks.title')}</h3>
      <table className="table table--compact" aria-label={t('automation.weeks.title')} data-testid="automation-weeks">
        <thead>
          <tr>
            <th>{t('automation.weeks.week')}</th>
            <th className="num">{t('automation.weeks.promised')}</th>
            <th className="num">{t('automation.weeks.realised')}</th>
            <th className="num">{t('automation.weeks.stoppedHours')}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.key}>
              <td>{row.week}</td>
              <td className="num">{row.promised}</td>
              <td className="num">{row.realised}</td>
              <td className="num">{row.stoppedHours}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

function ActionHistory({ rec, timeZone }: { rec: Recommendation; timeZone: string }) {
  const { t } = useTranslation();
  const list = usePaginatedList<AutomationAction>(queryKeys.automationActions(rec.id), (q, signal) => automationApi.actions(rec.id, q, signal), 10);
  return (
    <>
      <h3 className="subsection-title">{t('automation.history.title')}</h3>
      <ErrorBanner error={list.error} onRetry={list.reload} />
      {list.loading && list.items.length === 0 ? (
        <Spinner label={t('automation.history.loading')} />
      ) : (
        !list.error && (
          <table className="table table--compact" aria-label={t('automation.history.title')} data-testid="automation-history">
            <thead>
              <tr>
                <th>{t('automation.history.planned')}</th>
                <th>{t('automation.history.done')}</th>
                <th>{t('automation.next.what')}</th>
                <th>{t('automation.next.instance')}</th>
                <th>{t('automation.history.status')}</th>
                <th>{t('automation.history.reason')}</th>
              </tr>
            </thead>
            <tbody>
              {list.items.length === 0 && (
                <tr>
                  <td colSpan={6} className="table__empty">
                    {t('automation.history.none')}
                  </td>
                </tr>
              )}
              {list.items.map((action) => {
                const times = historyTimes(action, timeZone);
                return (
                  <tr key={action.id} data-status={action.status}>
                    <td>{times.due}</td>
                    <td>{times.done}</td>
                    <td>{actionKindLabel(action.kind)}</td>
                    <td>{action.instance_name || action.instance_provider_id}</td>
                    <td>{actionStatusLabel(action.status)}</td>
                    <td className="muted">{actionReasonText(action)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )
      )}
      <Pagination page={list.page} pageSize={list.pageSize} count={list.count} onPage={list.setPage} disabled={list.loading} />
    </>
  );
}
