import { useTranslation } from 'react-i18next';
import { useState, type FormEvent } from 'react';
import type { ApiError } from '../../api/client';
import type { DigestFrequency, DigestSubscription, DigestSubscriptionInput, Project, Timezone } from '../../api/types';
import { FormField, FormFieldset } from '../../components/FormField';
import { FormErrorBanner } from '../../components/ui';
import { translatedLabels } from '../../i18n';

export const FREQUENCIES: DigestFrequency[] = ['daily', 'weekly', 'monthly'];
export const FREQUENCY_LABELS: Record<DigestFrequency, string> = translatedLabels(FREQUENCIES, 'reports.frequency');
/** 0 = Monday, as the API counts. */
export const WEEKDAY_KEYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export const WEEKDAY_LABELS = translatedLabels(WEEKDAY_KEYS, 'reports.weekday');

export interface DigestFormValues {
  frequency: DigestFrequency;
  weekday: number;
  dayOfMonth: number;
  sendTime: string;
  timezone: string;
  scope: 'organization' | 'projects';
  projects: number[];
  workdaysOnly: boolean;
}

/** The API's defaults: weekly, Monday 09:00, the organization's timezone, workdays only. */
export const DEFAULT_DIGEST: DigestFormValues = {
  frequency: 'weekly',
  weekday: 0,
  dayOfMonth: 1,
  sendTime: '09:00',
  timezone: '',
  scope: 'organization',
  projects: [],
  workdaysOnly: true,
};

export function formFromSubscription(s: DigestSubscription): DigestFormValues {
  return {
    frequency: s.frequency,
    weekday: s.weekday,
    dayOfMonth: s.day_of_month,
    sendTime: s.send_time.slice(0, 5),
    timezone: s.timezone,
    scope: s.projects.length ? 'projects' : 'organization',
    projects: [...s.projects],
    workdaysOnly: s.workdays_only,
  };
}

/** The request body: a whole-organization digest sends an empty project list. */
export function inputFromForm(v: DigestFormValues): DigestSubscriptionInput {
  return {
    frequency: v.frequency,
    weekday: v.weekday,
    day_of_month: v.dayOfMonth,
    send_time: v.sendTime,
    // Typed by the person (blank: the organization's): the server checks it is a zone.
    timezone: v.timezone.trim() as Timezone | '',
    projects: v.scope === 'projects' ? v.projects : [],
    workdays_only: v.workdaysOnly,
  };
}

const INLINE = ['frequency', 'weekday', 'day_of_month', 'send_time', 'timezone', 'projects', 'workdays_only'];

export function DigestForm({
  initial,
  projects,
  orgTimezone,
  submitLabel,
  error,
  busy,
  onSubmit,
  onCancel,
}: {
  initial: DigestFormValues;
  projects: Project[];
  orgTimezone: string;
  submitLabel: string;
  error: ApiError | null;
  busy: boolean;
  onSubmit: (values: DigestFormValues) => void;
  onCancel?: () => void;
}) {
  const { t } = useTranslation();
  const [v, setV] = useState(initial);
  const set = <K extends keyof DigestFormValues>(key: K, value: DigestFormValues[K]) => setV((old) => ({ ...old, [key]: value }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSubmit(v);
  };
  const toggleProject = (id: number, on: boolean) =>
    set('projects', on ? [...v.projects, id] : v.projects.filter((p) => p !== id));

  return (
    <form className="card" onSubmit={submit} noValidate aria-label={t('reports.digests.form')}>
      <div className="form-grid">
        <FormField id="digest-frequency" label={t('reports.digests.frequency')} error={error?.field('frequency')}>
          {(control) => (
            <select {...control} value={v.frequency} onChange={(e) => set('frequency', e.target.value as DigestFrequency)}>
              {FREQUENCIES.map((f) => (
                <option key={f} value={f}>
                  {FREQUENCY_LABELS[f]}
                </option>
              ))}
            </select>
          )}
        </FormField>
        {v.frequency === 'weekly' && (
          <FormField id="digest-weekday" label={t('reports.digests.weekday')} error={error?.field('weekday')}>
            {(control) => (
              <select {...control} value={v.weekday} onChange={(e) => set('weekday', Number(e.target.value))}>
                {WEEKDAY_KEYS.map((key, i) => (
                  <option key={key} value={i}>
                    {WEEKDAY_LABELS[key]}
                  </option>
                ))}
              </select>
            )}
          </FormField>
        )}
        {v.frequency === 'monthly' && (
          <FormField
            id="digest-day"
            label={t('reports.digests.dayOfMonth')}
            hint={t('reports.digests.dayOfMonthHint')}
            error={error?.field('day_of_month')}
          >
            {(control) => (
              <input
                {...control}
                type="number"
                min={1}
                max={28}
                value={v.dayOfMonth}
                onChange={(e) => set('dayOfMonth', Number(e.target.value))}
              />
            )}
          </FormField>
        )}
        <FormField id="digest-time" label={t('reports.digests.sendTime')} error={error?.field('send_time')}>
          {(control) => <input {...control} type="time" value={v.sendTime} onChange={(e) => set('sendTime', e.target.value)} />}
        </FormField>
        <FormField
          id="digest-timezone"
          label={t('reports.digests.timezone')}
          hint={t('reports.digests.timezoneHint', { timeZone: orgTimezone })}
          error={error?.field('timezone')}
        >
          {(control) => (
            <input {...control} value={v.timezone} placeholder={orgTimezone} onChange={(e) => set('timezone', e.target.value)} />
          )}
        </FormField>
      </div>
      <FormFieldset id="digest-scope" legend={t('reports.digests.scope')} error={error?.field('projects')}>
        <label className="check">
          <input type="radio" name="digest-scope" checked={v.scope === 'organization'} onChange={() => set('scope', 'organization')} />
          {t('reports.digests.wholeOrg')}
        </label>
        <label className="check">
          <input type="radio" name="digest-scope" checked={v.scope === 'projects'} onChange={() => set('scope', 'projects')} />
          {t('reports.digests.chosenProjects')}
        </label>
        {v.scope === 'projects' &&
          (projects.length === 0 ? (
            <p className="muted">{t('reports.digests.noProjects')}</p>
          ) : (
            <div className="check-list">
              {projects.map((p) => (
                <label key={p.id} className="check">
                  <input type="checkbox" checked={v.projects.includes(p.id)} onChange={(e) => toggleProject(p.id, e.target.checked)} />
                  {p.name}
                </label>
              ))}
            </div>
          ))}
      </FormFieldset>
      <label className="check">
        <input type="checkbox" checked={v.workdaysOnly} onChange={(e) => set('workdaysOnly', e.target.checked)} />
        {t('reports.digests.workdaysOnly')}
      </label>
      <p className="muted field-hint">{t('reports.digests.workdaysHint')}</p>
      <FormErrorBanner error={error} inlineFields={INLINE} />
      <div className="form-actions">
        <button type="submit" className="btn btn--primary" disabled={busy || (v.scope === 'projects' && v.projects.length === 0)}>
          {busy ? t('common.saving') : submitLabel}
        </button>
        {onCancel && (
          <button type="button" className="btn" onClick={onCancel}>
            {t('common.cancel')}
          </button>
        )}
      </div>
    </form>
  );
}
