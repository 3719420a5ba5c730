import { useState } from 'react';
import type { ApiError } from '../../api/client';
import { toApiError, type RowAction } from '../../hooks';

/** Which form a settings list shows above its table: none, a new row's, or an existing row's. */
export type EditMode = { kind: 'closed' } | { kind: 'create' } | { kind: 'edit'; id: number };

/**
 * The create/edit form of a settings list (budgets, alert rules): which form is open, its error and busy
 * state, and which row is asking to delete (one at a time, see RowEditDelete).
 */
export function useEditForm(rowAction: Pick<RowAction, 'setNotice'>, reloadList: () => void) {
  const [mode, setMode] = useState<EditMode>({ kind: 'closed' });
  const [formError, setFormError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const [confirmId, setConfirmId] = useState<number | null>(null);

  const open = (next: EditMode) => {
    setFormError(null);
    setMode(next);
  };

  /**
   * Saves the open form with `write` (it creates or updates, as `mode` says, and returns the notice to show);
   * on success the form closes and the list is fetched again, on failure the form shows the error.
   */
  const save = async (write: (mode: EditMode) => Promise<string>) => {
    setBusy(true);
    setFormError(null);
    rowAction.setNotice(null);
    try {
      rowAction.setNotice(await write(mode));
      setMode({ kind: 'closed' });
      reloadList();
    } catch (err) {
      setFormError(toApiError(err));
    } finally {
      setBusy(false);
    }
  };

  return { mode, open, save, formError, busy, confirmId, setConfirmId };
}
