import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiError } from '../api/client';

export function EmptyState({
  title,
  children,
  icon = '◇',
  action,
  testId,
}: {
  title: string;
  children?: ReactNode;
  icon?: string;
  action?: ReactNode;
  testId?: string;
}) {
  return (
    <div className="empty-state" data-testid={testId}>
      <div className="empty-state__icon" aria-hidden="true">
        {icon}
      </div>
      <h2 className="empty-state__title">{title}</h2>
      {children && <div className="empty-state__body">{children}</div>}
      {action && <div className="empty-state__action">{action}</div>}
    </div>
  );
}

export function ErrorBanner({ error, onRetry }: { error: ApiError | Error | string | null; onRetry?: () => void }) {
  const { t } = useTranslation();
  if (!error) return null;
  const message = typeof error === 'string' ? error : error.message;
  return (
    <div className="alert alert--error" role="alert">
      <span>{message}</span>
      {onRetry && (
        <button type="button" className="btn btn--small btn--ghost" onClick={onRetry}>
          {t('common.retry')}
        </button>
      )}
    </div>
  );
}

export function Spinner({ label }: { label?: string }) {
  const { t } = useTranslation();
  return (
    <div className="loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      <span>{label ?? t('common.loading')}</span>
    </div>
  );
}

export function Pagination({
  page,
  pageSize,
  count,
  onPage,
  disabled,
}: {
  page: number;
  pageSize: number;
  count: number;
  onPage: (page: number) => void;
  disabled?: boolean;
}) {
  const { t } = useTranslation();
  const pages = Math.max(1, Math.ceil(count / pageSize));
  if (count <= pageSize && page === 1) return null;
  const first = count === 0 ? 0 : (page - 1) * pageSize + 1;
  const last = Math.min(count, page * pageSize);
  return (
    <nav className="pagination" aria-label={t('common.pagination')}>
      <span className="pagination__info">{t('common.rangeOf', { first, last, count })}</span>
      <button type="button" className="btn btn--small" onClick={() => onPage(page - 1)} disabled={disabled || page <= 1}>
        {t('common.previous')}
      </button>
      <span className="pagination__page">{t('common.pageOf', { page, pages })}</span>
      <button
        type="button"
        className="btn btn--small"
        onClick={() => onPage(page + 1)}
        disabled={disabled || page >= pages}
      >
        {t('common.next')}
      </button>
    </nav>
  );
}

/** The error's message, plus any field errors the form does not show next to an input. */
export function FormErrorBanner({ error, inlineFields = [] }: { error: ApiError | null; inlineFields?: string[] }) {
  if (!error) return null;
  const other = Object.entries(error.fields).filter(([field]) => !inlineFields.includes(field));
  return (
    <div className="alert alert--error" role="alert">
      <span>{error.message}</span>
      {other.length > 0 && (
        <ul className="alert__list">
          {other.flatMap(([field, messages]) =>
            messages.map((m, i) => (
              <li key={`${field}-${i}`}>
                {field === 'non_field_errors' || field === '__all__' ? m : `${field}: ${m}`}
              </li>
            )),
          )}
        </ul>
      )}
    </div>
  );
}

/** Shown instead of a data page when the user belongs to no organization yet. */
export function NoOrganization() {
  const { t } = useTranslation();
  return (
    <EmptyState title={t('common.noOrg.title')} icon="◎" testId="no-org">
      <p>{t('common.noOrg.body')}</p>
    </EmptyState>
  );
}

/** A whole page for a user who is in no organization yet: the page's title, then what to do first. */
export function NoOrganizationPage({ title }: { title: string }) {
  return (
    <div className="page">
      <header className="page__header">
        <h1>{title}</h1>
      </header>
      <NoOrganization />
    </div>
  );
}
