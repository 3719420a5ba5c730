import { useTranslation } from 'react-i18next';
import { ConfirmButton } from './ConfirmButton';

export interface RowEditDeleteProps {
  /** The row's name, for the buttons' accessible names ("Edit <name>", "Delete <name>"). */
  name: string;
  /** Asked before deleting, e.g. "Delete this budget?". */
  question: string;
  onEdit: () => void;
  onDelete: () => void;
  /**
   * Whether this row asks "<question> [Yes, delete] [Cancel]". The list holds it rather than each row, so that
   * asking on one row puts any other row that was asking back to its buttons (see ConfirmButton).
   */
  confirming: boolean;
  onConfirmingChange: (confirming: boolean) => void;
  /** The row's delete is in flight. */
  busy: boolean;
}

/** The actions cell of a settings row that people with the right role may edit or delete (delete asks first). */
export function RowEditDelete({ name, question, onEdit, onDelete, confirming, onConfirmingChange, busy }: RowEditDeleteProps) {
  const { t } = useTranslation();
  return (
    <td className="table__actions">
      <button type="button" className="btn btn--small btn--ghost" aria-label={t('rowEditDelete.editName', { name })} onClick={onEdit}>
        {t('rowEditDelete.edit')}
      </button>
      <ConfirmButton
        label={t('rowEditDelete.delete')}
        ariaLabel={t('rowEditDelete.deleteName', { name })}
        question={question}
        confirmLabel={t('rowEditDelete.deleteConfirm')}
        confirming={confirming}
        onConfirmingChange={onConfirmingChange}
        onConfirm={onDelete}
        busy={busy}
      />
    </td>
  );
}
