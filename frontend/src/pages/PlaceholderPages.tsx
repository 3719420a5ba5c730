import { EmptyState } from '../components/ui';

function ComingFromCloud({ title, what, icon }: { title: string; what: string; icon: string }) {
  return (
    <div className="page">
      <header className="page__header">
        <h1>{title}</h1>
      </header>
      <EmptyState title={`No ${title.toLowerCase()} yet`} icon={icon}>
        <p>{what}</p>
        <p className="muted">
          This needs a connected Tencent Cloud account. Nothing is shown until real data has been synced from your cloud.
        </p>
      </EmptyState>
    </div>
  );
}

export function RecommendationsPage() {
  return (
    <ComingFromCloud
      title="Recommendations"
      icon="✦"
      what="Priced savings recommendations will appear here: stopping idle cards, day/night schedules, monthly subscription versus pay-as-you-go, spot instances and right-sizing, each with the evidence behind it."
    />
  );
}

export function ReportsPage() {
  return (
    <ComingFromCloud
      title="Reports"
      icon="▥"
      what="Monthly and daily spend reports by project, team and instance will appear here, ready to export as CSV or FOCUS for your finance tools."
    />
  );
}

export function NotFoundPage() {
  return (
    <div className="page">
      <EmptyState title="Page not found" icon="?">
        <p>This page does not exist. Use the navigation on the left.</p>
      </EmptyState>
    </div>
  );
}
