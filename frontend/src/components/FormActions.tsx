import { useTranslation } from 'react-i18next';

/** The buttons under a create/edit form: submit (saying "Saving…" while busy) and Cancel. */
export function FormActions({ submitLabel, busy, onCancel }: { submitLabel: string; busy: boolean; onCancel: () => void }) {
  const { t } = useTranslation();
  return (
    <div className="form-actions">
      <button type="submit" className="btn btn--primary" disabled={busy}>
        {busy ? t('common.saving') : submitLabel}
      </button>
      <button type="button" className="btn" onClick={onCancel}>
        {t('common.cancel')}
      </button>
    </div>
  );
}
