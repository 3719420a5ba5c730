import { useTranslation } from 'react-i18next';
import { useState, type FormEvent } from 'react';
import { holidaysApi } from '../../api/endpoints';
import type { ApiError } from '../../api/client';
import type { Holiday } from '../../api/types';
import { ConfirmButton } from '../../components/ConfirmButton';
import { FormField } from '../../components/FormField';
import { PaginatedTable } from '../../components/PaginatedTable';
import { FormErrorBanner } from '../../components/ui';
import { queryKeys } from '../../data/keys';
import { formatDate } from '../../format';
import { toApiError, usePaginatedList, useRowAction } from '../../hooks';

/** The organization's days off: workdays-only digests skip them. Every member reads; owners and admins edit. */
export function HolidaysSection({ canManage }: { canManage: boolean }) {
  const { t } = useTranslation();
  const list = usePaginatedList<Holiday>(queryKeys.holidays, (q, signal) => holidaysApi.list(q, signal), 50);
  const rowAction = useRowAction(list.reload);
  const [date, setDate] = useState('');
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [formError, setFormError] = useState<ApiError | null>(null);
  const [confirmId, setConfirmId] = useState<number | null>(null);

  const add = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setFormError(null);
    rowAction.setNotice(null);
    try {
      await holidaysApi.create({ date, name: name.trim() });
      rowAction.setNotice(t('reports.holidays.added'));
      setDate('');
      setName('');
      list.reload();
    } catch (err) {
      setFormError(toApiError(err));
    } finally {
      setBusy(false);
    }
  };

  const renderRow = (h: Holiday) => (
    <tr key={h.id}>
      {/* A calendar day, not a moment: formatted at noon UTC so no timezone moves it. */}
      <td>{formatDate(`${h.date}T12:00:00Z`, 'UTC')}</td>
      <td>{h.name || '—'}</td>
      {canManage && (
        <td className="table__actions">
          <ConfirmButton
            label={t('reports.holidays.remove')}
            question={t('reports.holidays.removeQuestion')}
            confirmLabel={t('reports.holidays.removeConfirm')}
            confirming={confirmId === h.id}
            onConfirmingChange={(c) => setConfirmId(c ? h.id : null)}
            onConfirm={() =>
              void rowAction.run(h.id, () => holidaysApi.remove(h.id), t('reports.holidays.removed'))
            }
            busy={rowAction.busyId === h.id}
          />
        </td>
      )}
    </tr>
  );

  return (
    <section aria-labelledby="holidays-title">
      <div className="section-header">
        <div>
          <h2 id="holidays-title">{t('reports.holidays.title')}</h2>
          <p className="muted">{t('reports.holidays.intro')}</p>
        </div>
      </div>
      {canManage ? (
        <form className="card inline-form" onSubmit={(e) => void add(e)} noValidate aria-label={t('reports.holidays.form')}>
          <FormField id="holiday-date" label={t('reports.holidays.date')} error={formError?.field('date')}>
            {(control) => <input {...control} type="date" value={date} onChange={(e) => setDate(e.target.value)} required />}
          </FormField>
          <FormField id="holiday-name" label={t('reports.holidays.name')} error={formError?.field('name')} className="field--grow">
            {(control) => (
              <input
                {...control}
                value={name}
                maxLength={100}
                placeholder={t('reports.holidays.namePlaceholder')}
                onChange={(e) => setName(e.target.value)}
              />
            )}
          </FormField>
          <div className="field field--button">
            <button type="submit" className="btn btn--primary" disabled={busy || !date}>
              {busy ? t('common.saving') : t('reports.holidays.add')}
            </button>
          </div>
        </form>
      ) : (
        <p className="muted">{t('reports.holidays.cannotManage')}</p>
      )}
      <FormErrorBanner error={formError} inlineFields={['date', 'name']} />
      <PaginatedTable
        list={list}
        columns={[t('reports.holidays.date'), t('reports.holidays.name')]}
        withActions={canManage}
        loadingLabel={t('reports.holidays.loading')}
        emptyText={canManage ? t('reports.holidays.emptyManager') : t('reports.holidays.empty')}
        renderRow={renderRow}
        notice={rowAction.notice}
        actionError={rowAction.error}
      />
    </section>
  );
}
