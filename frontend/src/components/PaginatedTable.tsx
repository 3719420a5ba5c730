import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { PaginatedList } from '../hooks';
import { ErrorBanner, Pagination, Spinner } from './ui';

export interface PaginatedTableProps<T> {
  list: PaginatedList<T>;
  /** Column titles, in order. */
  columns: string[];
  /** Adds an "Actions" column after the others. */
  withActions?: boolean;
  loadingLabel: string;
  /** The text of the single row shown when the list is empty. */
  emptyText: string;
  /** One `<tr>` per item, with its own `key`. */
  renderRow: (item: T) => ReactNode;
  /** Feedback from the rows' actions (see useRowAction), shown above the list. */
  notice?: string | null;
  actionError?: string | null;
}

/**
 * A list section of a settings tab: action feedback, the load error with a retry, a spinner on the first load,
 * then the table (with an empty row when there are no items) and the pagination under it.
 * It renders no wrapper element, so it sits directly in the tab's <section>.
 */
export function PaginatedTable<T>({
  list,
  columns,
  withActions = false,
  loadingLabel,
  emptyText,
  renderRow,
  notice = null,
  actionError = null,
}: PaginatedTableProps<T>) {
  const { t } = useTranslation();
  // Reloads keep the current rows on screen; only the first load shows the spinner.
  const firstLoad = list.loading && list.items.length === 0;

  return (
    <>
      {notice && (
        <div className="alert alert--success" role="status">
          {notice}
        </div>
      )}
      <ErrorBanner error={actionError} />
      <ErrorBanner error={list.error} onRetry={list.reload} />
      {firstLoad ? (
        <Spinner label={loadingLabel} />
      ) : (
        !list.error && (
          <table className="table">
            <thead>
              <tr>
                {columns.map((title) => (
                  <th key={title}>{title}</th>
                ))}
                {withActions && <th className="table__actions">{t('common.actions')}</th>}
              </tr>
            </thead>
            <tbody>
              {list.items.length === 0 && (
                <tr>
                  <td colSpan={columns.length + (withActions ? 1 : 0)} className="table__empty">
                    {emptyText}
                  </td>
                </tr>
              )}
              {list.items.map((item) => renderRow(item))}
            </tbody>
          </table>
        )
      )}
      <Pagination page={list.page} pageSize={list.pageSize} count={list.count} onPage={list.setPage} disabled={list.loading} />
    </>
  );
}
