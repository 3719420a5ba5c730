import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiError } from '../../api/client';
import { ErrorBanner } from '../../components/ui';

/** Grey bars where the section's content will be, so the page does not jump when it arrives. */
export function Skeleton({ rows = 3, height }: { rows?: number; height?: number }) {
  const { t } = useTranslation();
  return (
    <div className="ov-skeleton" role="status" aria-label={t('common.loading')}>
      {Array.from({ length: rows }, (_, i) => (
        <div key={i} className="ov-skeleton__row" style={height ? { height: height / rows } : undefined} />
      ))}
    </div>
  );
}

/** One card of the Overview: its title and evidence line, then the skeleton, the error or the content. */
export function Section({
  title,
  subtitle,
  actions,
  loading,
  error,
  onRetry,
  skeletonHeight = 240,
  className,
  testId,
  children,
}: {
  title: string;
  subtitle?: ReactNode;
  actions?: ReactNode;
  loading: boolean;
  error: ApiError | null;
  onRetry: () => void;
  skeletonHeight?: number;
  className?: string;
  testId?: string;
  children: ReactNode;
}) {
  return (
    <section className={`card ov-section${className ? ` ${className}` : ''}`} data-testid={testId} aria-label={title}>
      <div className="ov-section__header">
        <div>
          <h2 className="ov-section__title">{title}</h2>
          {subtitle && <p className="muted ov-section__subtitle">{subtitle}</p>}
        </div>
        {actions}
      </div>
      {error ? <ErrorBanner error={error} onRetry={onRetry} /> : loading ? <Skeleton height={skeletonHeight} /> : children}
    </section>
  );
}

/** What a section says when it has nothing to show, and what to do about it. */
export function SectionEmpty({ title, children, testId }: { title: string; children?: ReactNode; testId?: string }) {
  return (
    <div className="ov-empty" data-testid={testId}>
      <p className="ov-empty__title">{title}</p>
      {children && <div className="muted">{children}</div>}
    </div>
  );
}
