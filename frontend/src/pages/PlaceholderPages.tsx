import { useTranslation } from 'react-i18next';
import { EmptyState } from '../components/ui';

function ComingFromCloud({ title, what, icon }: { title: string; what: string; icon: string }) {
  const { t } = useTranslation();
  return (
    <div className="page">
      <header className="page__header">
        <h1>{title}</h1>
      </header>
      <EmptyState title={t('placeholder.nothingYet', { what: title })} icon={icon}>
        <p>{what}</p>
        <p className="muted">{t('placeholder.needsAccount')}</p>
      </EmptyState>
    </div>
  );
}

export function RecommendationsPage() {
  const { t } = useTranslation();
  return (
    <ComingFromCloud
      title={t('nav.recommendations')}
      icon="✦"
      what={t('placeholder.recommendations')}
    />
  );
}

export function NotFoundPage() {
  const { t } = useTranslation();
  return (
    <div className="page">
      <EmptyState title={t('notFound.title')} icon="?">
        <p>{t('notFound.body')}</p>
      </EmptyState>
    </div>
  );
}
