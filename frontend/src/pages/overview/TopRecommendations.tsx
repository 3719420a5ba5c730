import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { RecommendationActions } from '../recommendations/RecommendationActions';
import { SavingText, TargetText } from '../recommendations/parts';
import { statusLabel } from '../recommendations/labels';
import { useTopRecommendations } from './data';
import { Section, SectionEmpty } from './Section';
import type { OverviewScope } from './types';

export const TOP_RECOMMENDATIONS = 5;

/** The open recommendations that would save the most money a month, with accept and dismiss. */
export function TopRecommendations({ scope }: { scope: OverviewScope }) {
  const { t } = useTranslation();
  const recs = useTopRecommendations(scope, TOP_RECOMMENDATIONS);
  const [notice, setNotice] = useState<string | null>(null);
  const items = recs.data?.results ?? [];
  const allLink = scope.project ? `/recommendations?project=${scope.project.id}` : '/recommendations';
  return (
    <Section
      title={t('dashboard.recs.title')}
      subtitle={recs.data && recs.data.count > 0 ? t('dashboard.recs.subtitle', { count: recs.data.count }) : undefined}
      actions={
        <Link to={allLink} className="btn btn--small btn--ghost">
          {t('dashboard.recs.all')}
        </Link>
      }
      loading={recs.loading}
      error={recs.error}
      onRetry={recs.reload}
      skeletonHeight={200}
      testId="top-recommendations"
    >
      {notice && (
        <div className="alert alert--success" role="status" data-testid="recs-notice">
          <span>{notice}</span>
        </div>
      )}
      {items.length === 0 ? (
        <SectionEmpty title={t('dashboard.recs.emptyTitle')} testId="recs-empty">
          {t('dashboard.recs.emptyBody')}
        </SectionEmpty>
      ) : (
        <ol className="ov-recs">
          {items.map((rec) => (
            <li key={rec.id} className="ov-recs__item" data-testid={`top-rec-${rec.id}`}>
              <div className="ov-recs__main">
                <Link to={`/recommendations/${rec.id}`} className="ov-recs__title">
                  {rec.title}
                </Link>
                <div className="muted">
                  <TargetText rec={rec} />
                </div>
              </div>
              <div className="ov-recs__saving">
                <SavingText rec={rec} withFormula={false} />
              </div>
              <RecommendationActions
                rec={rec}
                timeZone={scope.timeZone}
                onDone={(updated) => setNotice(t('dashboard.recs.done', { title: updated.title, status: statusLabel(updated.status) }))}
              />
            </li>
          ))}
        </ol>
      )}
    </Section>
  );
}
