import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { useMe } from '../../auth/AuthContext';
import { EmptyState, ErrorBanner, NoOrganization } from '../../components/ui';
import { useProjects } from './data';
import { OverviewSections } from './OverviewSections';
import { Skeleton } from './Section';

/** `/projects/:slug`: the Overview's sections scoped to one project. */
export function ProjectPage() {
  const { slug = '' } = useParams();
  const { t } = useTranslation();
  const org = useMe().organization;
  const projects = useProjects();
  if (!org) return <NoOrganization />;
  const project = projects.data?.results.find((p) => p.slug === slug);
  return (
    <div className="page">
      <header className="page__header">
        <div>
          <p className="muted">
            <Link to="/projects">{t('nav.projects')}</Link>
          </p>
          <h1 data-testid="project-title">{project?.name ?? slug}</h1>
        </div>
      </header>
      {projects.error ? (
        <ErrorBanner error={projects.error} onRetry={projects.reload} />
      ) : projects.loading ? (
        <Skeleton rows={4} height={200} />
      ) : !project ? (
        <EmptyState title={t('dashboard.project.notFoundTitle')} icon="◎" testId="project-not-found">
          <p>{t('dashboard.project.notFoundBody', { slug })}</p>
          <p>
            <Link to="/projects" className="btn">
              {t('dashboard.project.allProjects')}
            </Link>
          </p>
        </EmptyState>
      ) : (
        <OverviewSections
          key={project.slug}
          scope={{ project: { id: project.id, slug: project.slug, name: project.name }, timeZone: org.timezone, currency: org.currency }}
        />
      )}
    </div>
  );
}
