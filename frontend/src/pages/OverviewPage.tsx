import { lazy, Suspense } from 'react';
import { Link } from 'react-router';
import { useMe } from '../auth/AuthContext';
import { ROLE_LABELS } from '../api/types';
import { EmptyState, Spinner } from '../components/ui';
import type { DailySpendPoint } from './SpendChart';
import { CURRENCY_LABELS } from '../format';

// ECharts is loaded only when there is something to draw, so the first page load stays small.
const SpendChart = lazy(() => import('./SpendChart'));

/**
 * No spend endpoint exists yet: until a Tencent Cloud account is connected and synced there is no data,
 * and the Overview says so instead of showing made-up numbers.
 */
const NO_DATA: DailySpendPoint[] = [];

export function OverviewPage({ spend = NO_DATA }: { spend?: DailySpendPoint[] }) {
  const me = useMe();
  const org = me.organization;

  return (
    <div className="page">
      <header className="page__header">
        <div>
          <h1>Overview</h1>
          <p className="page__subtitle">
            Signed in as <strong data-testid="user-email">{me.email}</strong>
          </p>
        </div>
      </header>

      {org ? (
        <section className="card org-summary" aria-label="Organization">
          <dl className="facts">
            <div>
              <dt>Organization</dt>
              <dd data-testid="org-name">{org.name}</dd>
            </div>
            <div>
              <dt>Timezone</dt>
              <dd data-testid="org-timezone">{org.timezone}</dd>
            </div>
            <div>
              <dt>Currency</dt>
              <dd data-testid="org-currency" title={CURRENCY_LABELS[org.currency]}>
                {org.currency}
              </dd>
            </div>
            <div>
              <dt>Your role</dt>
              <dd data-testid="user-role">{ROLE_LABELS[org.role] ?? org.role}</dd>
            </div>
          </dl>
        </section>
      ) : (
        <EmptyState title="You are not in an organization yet" icon="◎" testId="no-org">
          <p>
            Ask an owner or admin of your team to invite <strong>{me.email}</strong>, then accept the invitation from
            the e-mail you receive.
          </p>
        </EmptyState>
      )}

      {org &&
        (spend.length > 0 ? (
          <section className="card">
            <h2 className="card__title">Daily GPU spend and utilization</h2>
            <Suspense fallback={<Spinner label="Loading chart…" />}>
              <SpendChart points={spend} currency={org.currency} />
            </Suspense>
          </section>
        ) : (
          <EmptyState title={`Welcome to GPU Ledger, ${me.name || me.email}`} icon="▦" testId="overview-empty">
            <p>
              Connect a Tencent Cloud account to <strong>{org.name}</strong> and this page fills with your GPU spend and
              utilization: daily cost in {org.currency}, how busy each card is, and where money goes to idle GPUs.
            </p>
            <ol className="steps">
              <li>Create a read-only CAM sub-account key in the Tencent Cloud console.</li>
              <li>
                Connect it to this organization in <Link to="/settings/cloud-accounts">Settings → Cloud accounts</Link>;
                instances, tags and bills are synced automatically.
              </li>
              <li>After the first sync, spend and utilization charts and savings recommendations appear here.</li>
            </ol>
            <p className="muted">
              Days and months are computed in {org.timezone}. Invite your team from{' '}
              <Link to="/settings/members">Settings</Link>.
            </p>
          </EmptyState>
        ))}
    </div>
  );
}
