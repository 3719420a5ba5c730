import { useTranslation } from 'react-i18next';

export interface ConfirmButtonProps {
  /** The button's text, e.g. "Revoke". */
  label: string;
  /** The button's accessible name when its text alone does not say which row it acts on. */
  ariaLabel?: string;
  /** Shown before the two buttons of the confirm step, e.g. "Revoke?". */
  question: string;
  /** The text of the button that does it, e.g. "Yes, revoke". */
  confirmLabel: string;
  /**
   * Whether the confirm step is shown. The list holds it rather than each button, so that asking on one row
   * puts any other row that was asking back to its button.
   */
  confirming: boolean;
  onConfirmingChange: (confirming: boolean) => void;
  onConfirm: () => void;
  /** The row's action is in flight: the button and the confirming button are disabled, Cancel is not. */
  busy?: boolean;
}

/** A destructive row action that asks first: the button gives way to "<question> [confirmLabel] [Cancel]". */
export function ConfirmButton({
  label,
  ariaLabel,
  question,
  confirmLabel,
  confirming,
  onConfirmingChange,
  onConfirm,
  busy = false,
}: ConfirmButtonProps) {
  const { t } = useTranslation();
  if (!confirming) {
    return (
      <button
        type="button"
        className="btn btn--small btn--ghost-danger"
        disabled={busy}
        onClick={() => onConfirmingChange(true)}
        aria-label={ariaLabel}
      >
        {label}
      </button>
    );
  }
  return (
    <span className="confirm">
      <span>{question}</span>
      <button type="button" className="btn btn--small btn--danger" disabled={busy} onClick={() => onConfirm()}>
        {confirmLabel}
      </button>
      <button type="button" className="btn btn--small" onClick={() => onConfirmingChange(false)}>
        {t('common.cancel')}
      </button>
    </span>
  );
}
