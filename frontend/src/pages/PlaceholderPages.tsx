import { useTranslation } from 'react-i18next';
import { EmptyState } from '../components/ui';

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
