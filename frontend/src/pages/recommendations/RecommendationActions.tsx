import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../api/client';
import { recommendationsApi } from '../../api/endpoints';
import type { Recommendation, RecommendationActionInput, RecommendationDetail } from '../../api/types';
import { useMe } from '../../auth/AuthContext';
import { FormField } from '../../components/FormField';
import { FormErrorBanner } from '../../components/ui';
import { queryKeys } from '../../data/keys';
import { addDays, todayIn } from '../../dateRange';
import { toApiError } from '../../hooks';
import { canEditDomain } from '../settings/permissions';
import { allowedActions, startOfDayIn } from './labels';

type Form = 'dismiss' | 'snooze' | null;

/**
 * Accept, dismiss (with a reason), snooze (until a day) or reopen one recommendation. Only what its status
 * allows is offered, and nothing to a viewer or finance (the API refuses them too). After an action the
 * recommendation's detail is replaced by the API's answer and every list and total is fetched again, so it
 * moves to its new status everywhere. `onDone` is told what happened (the row may leave the list it is in).
 */
export function RecommendationActions({
  rec,
  timeZone,
  onDone,
}: {
  rec: Recommendation;
  timeZone: string;
  onDone?: (updated: RecommendationDetail, action: RecommendationActionInput['action']) => void;
}) {
  const me = useMe();
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [form, setForm] = useState<Form>(null);
  const [reason, setReason] = useState('');
  const [until, setUntil] = useState('');
  const [localError, setLocalError] = useState<{ field: 'reason' | 'until'; message: string } | null>(null);

  const mutation = useMutation({
    mutationFn: (input: RecommendationActionInput) => recommendationsApi.act(rec.id, input),
    onSuccess: async (updated, input) => {
      queryClient.setQueryData(queryKeys.recommendation(rec.id), updated);
      setForm(null);
      setReason('');
      setUntil('');
      onDone?.(updated, input.action);
      await queryClient.invalidateQueries({ queryKey: queryKeys.recommendations });
    },
  });

  if (!canEditDomain(me.organization?.role)) return null;
  const allowed = allowedActions(rec.status);
  if (allowed.length === 0) return null;

  const apiError = mutation.error ? toApiError(mutation.error) : null;
  const fieldError = (field: 'reason' | 'until') =>
    localError?.field === field ? localError.message : apiError instanceof ApiError ? apiError.field(field) : undefined;
  const busy = mutation.isPending;
  const today = todayIn(timeZone);

  const act = (input: RecommendationActionInput) => {
    setLocalError(null);
    mutation.mutate(input);
  };
  const open = (next: Form) => {
    mutation.reset();
    setLocalError(null);
    setForm(form === next ? null : next);
  };

  const submitDismiss = (event: FormEvent) => {
    event.preventDefault();
    if (!reason.trim()) {
      setLocalError({ field: 'reason', message: t('recommendations.actions.reasonRequired') });
      return;
    }
    act({ action: 'dismiss', reason: reason.trim() });
  };

  const submitSnooze = (event: FormEvent) => {
    event.preventDefault();
    const moment = startOfDayIn(until, timeZone);
    if (!moment) {
      setLocalError({ field: 'until', message: t('recommendations.actions.untilRequired') });
      return;
    }
    act({ action: 'snooze', until: moment, ...(reason.trim() ? { reason: reason.trim() } : {}) });
  };

  const formId = `rec-${rec.id}`;
  return (
    <div className="rec-actions" data-testid={`rec-actions-${rec.id}`}>
      <div className="table__actions">
        {allowed.includes('accept') && (
          <button
            type="button"
            className="btn btn--small btn--primary"
            disabled={busy}
            data-action="accept"
            onClick={() => act({ action: 'accept' })}
            aria-label={t('recommendations.actions.acceptLabel', { title: rec.title })}
          >
            {t('recommendations.actions.accept')}
          </button>
        )}
        {allowed.includes('dismiss') && (
          <button
            type="button"
            className={`btn btn--small${form === 'dismiss' ? ' btn--selected' : ''}`}
            disabled={busy}
            aria-expanded={form === 'dismiss'}
            data-action="dismiss"
            onClick={() => open('dismiss')}
            aria-label={t('recommendations.actions.dismissLabel', { title: rec.title })}
          >
            {t('recommendations.actions.dismiss')}
          </button>
        )}
        {allowed.includes('snooze') && (
          <button
            type="button"
            className={`btn btn--small${form === 'snooze' ? ' btn--selected' : ''}`}
            disabled={busy}
            aria-expanded={form === 'snooze'}
            data-action="snooze"
            onClick={() => open('snooze')}
            aria-label={t('recommendations.actions.snoozeLabel', { title: rec.title })}
          >
            {t('recommendations.actions.snooze')}
          </button>
        )}
        {allowed.includes('reopen') && (
          <button
            type="button"
            className="btn btn--small btn--ghost"
            disabled={busy}
            data-action="reopen"
            onClick={() => act({ action: 'reopen' })}
            aria-label={t('recommendations.actions.reopenLabel', { title: rec.title })}
          >
            {t('recommendations.actions.reopen')}
          </button>
        )}
      </div>

      {form === 'dismiss' && (
        <form className="inline-form rec-form" onSubmit={submitDismiss} noValidate>
          <FormField
            id={`${formId}-reason`}
            label={t('recommendations.actions.reason')}
            hint={t('recommendations.actions.reasonHint')}
            error={fieldError('reason')}
            className="field--grow"
          >
            {(control) => <textarea {...control} rows={2} value={reason} onChange={(e) => setReason(e.target.value)} />}
          </FormField>
          <div className="field field--button">
            <button type="submit" className="btn btn--small btn--danger" disabled={busy}>
              {t('recommendations.actions.confirmDismiss')}
            </button>
          </div>
        </form>
      )}

      {form === 'snooze' && (
        <form className="inline-form rec-form" onSubmit={submitSnooze} noValidate>
          <FormField
            id={`${formId}-until`}
            label={t('recommendations.actions.until')}
            hint={t('recommendations.actions.untilHint', { timeZone })}
            error={fieldError('until')}
          >
            {(control) => (
              <input {...control} type="date" min={addDays(today, 1)} value={until} onChange={(e) => setUntil(e.target.value)} />
            )}
          </FormField>
          <FormField id={`${formId}-snooze-reason`} label={t('recommendations.actions.reasonOptional')} className="field--grow">
            {(control) => <input {...control} type="text" value={reason} onChange={(e) => setReason(e.target.value)} />}
          </FormField>
          <div className="field field--button">
            <button type="submit" className="btn btn--small" disabled={busy}>
              {t('recommendations.actions.confirmSnooze')}
            </button>
          </div>
        </form>
      )}

      <FormErrorBanner error={apiError} inlineFields={form ? ['reason', 'until'] : []} />
    </div>
  );
}
