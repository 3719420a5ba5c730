/**
 * /connect — the first run of an organization: connect a Tencent Cloud account (tested before saving), then
 * watch its backfill per kind and the first costs as they appear.
 */
import { useTranslation } from 'react-i18next';
import { useState } from 'react';
import { Link } from 'react-router';
import { useMe } from '../../auth/AuthContext';
import { analysisApi, cloudAccountsApi } from '../../api/endpoints';
import type { CloudAccount, Org, AnalysisSummary } from '../../api/types';
import { StatCard } from '../../components/analysis';
import { backfillDone, SyncProgress } from '../../components/SyncProgress';
import { EmptyState, ErrorBanner, Spinner } from '../../components/ui';
import { useApiData } from '../../hooks';
import { queryKeys } from '../../data/keys';
import { formatDecimal, formatMoney } from '../../money';
import { costBasis } from './costBasis';
import { AccountForm, accountInput, EMPTY_FORM, testConnection, type AccountFormValues } from '../settings/CloudAccountForm';
import { canManageOrg } from '../settings/permissions';

/** The sync status is saved every few seconds while a sync runs; polling faster shows nothing new. */
export const PROGRESS_POLL_MS = 2_000;
/** Costs appear only once bills and metrics are in and analysed: a slower poll is enough. */
export const COSTS_POLL_MS = 5_000;

function FirstCosts({ org, complete }: { org: Org; complete: boolean }) {
  const { t } = useTranslation();
  const summary = useApiData<AnalysisSummary>([...queryKeys.analysisSummary, 'fleet'], (signal) => analysisApi.summary('fleet', {}, signal), {
    refetchInterval: () => COSTS_POLL_MS,
  });
  const totals = summary.data?.totals;
  const hasCosts = (totals?.instance_count ?? 0) > 0;
  const money = (amount: string | null | undefined) => formatMoney(amount, summary.data?.currency ?? org.currency);
  const basis = costBasis(totals?.cost_sources);
  // While the bills are read, a catalog price stands in for the bill still to come; once they are
  // in, an instance still at its catalog price has no hourly bill lines (a monthly subscription).
  const basisText = {
    bills: () => t('connect.basis.bills'),
    catalog: () => (complete ? t('connect.basis.catalogAfterBills') : t('connect.basis.catalog')),
    mixed: () => {
      if (basis.kind !== 'mixed') return '';
      const figures = { count: basis.priced, estimated: basis.estimated };
      return complete ? t('connect.basis.mixedAfterBills', figures) : t('connect.basis.mixed', figures);
    },
    none: () => '',
  }[basis.kind]();
  const basisDetail = (
    <span data-testid="first-cost-basis" data-basis={basis.kind}>
      {basisText}
      {basis.unpriced > 0 && ` ${t('connect.basis.unpriced', { count: basis.unpriced })}`}
    </span>
  );

  return (
    <section className="card" aria-labelledby="first-costs-title" data-testid="first-costs">
      <h2 id="first-costs-title">{t('connect.firstCosts')}</h2>
      <ErrorBanner error={summary.error} />
      {hasCosts && totals ? (
        <>
          <div className="stats">
            <StatCard label={t('connect.costLast7')} value={money(totals.cost)} detail={basisDetail} testId="first-cost" />
            <StatCard label={t('common.gpuHours')} value={formatDecimal(totals.gpu_hours)} testId="first-gpu-hours" />
            <StatCard label={t('connect.onIdle')} tone="waste" value={money(totals.idle_cost)} testId="first-idle" />
          </div>
          <p>
            <Link to="/" className="btn btn--primary">
              {t('connect.openOverview')}
            </Link>
          </p>
        </>
      ) : (
        <p className="muted" data-testid="first-costs-waiting">
          {complete
            ? t('connect.costsAfterAnalysis')
            : t('connect.costsAfterFirstData')}
        </p>
      )}
    </section>
  );
}

function Backfill({ account, org }: { account: CloudAccount; org: Org }) {
  const { t } = useTranslation();
  const polled = useApiData<CloudAccount>(queryKeys.cloudAccount(account.id), (signal) => cloudAccountsApi.get(account.id, signal), {
    refetchInterval: () => PROGRESS_POLL_MS,
  });
  const current = polled.data ?? account;
  const complete = backfillDone(current);
  return (
    <>
      <section className="card" aria-labelledby="backfill-title" data-testid="backfill">
        <h2 id="backfill-title">{complete ? t('connect.historyRead') : t('connect.readingHistory', { name: current.name })}</h2>
        <p className="muted">
          {complete
            ? t('connect.historyReadBody')
            : t('connect.readingHistoryBody')}
        </p>
        {current.status === 'failing' && current.last_error && (
          <div className="alert alert--error" role="alert">
            {current.last_error} <Link to="/settings/cloud-accounts">{t('connect.fixInSettings')}</Link>
          </div>
        )}
        <ErrorBanner error={polled.error} />
        <SyncProgress account={current} />
      </section>
      <FirstCosts org={org} complete={complete} />
    </>
  );
}

export function ConnectPage() {
  const { t } = useTranslation();
  const me = useMe();
  const org = me.organization;
  const [connected, setConnected] = useState<CloudAccount | null>(null);
  // The first account of the organization, if any (someone else may connect one meanwhile: checked every minute).
  const existing = useApiData<CloudAccount | null>(
    [...queryKeys.cloudAccounts, 'first'],
    async (signal) => {
      const page = await cloudAccountsApi.list({ page: 1, pageSize: 1 }, signal);
      return page.results[0] ?? null;
    },
    { enabled: Boolean(org) && connected === null, refetchInterval: () => 60_000 },
  );

  if (!org) {
    return (
      <div className="page">
        <EmptyState title={t('common.noOrg.title')} icon="◎" testId="no-org">
          <p>{t('connect.askForInvite', { email: me.email })}</p>
        </EmptyState>
      </div>
    );
  }

  const create = async (form: AccountFormValues) => {
    const created = await cloudAccountsApi.create(accountInput(form));
    setConnected(created);
  };

  const account = connected ?? existing.data;
  let body = <Spinner />;
  if (account) body = <Backfill account={account} org={org} />;
  else if (existing.error) body = <ErrorBanner error={existing.error} />;
  else if (!existing.loading) {
    body = !canManageOrg(org.role) ? (
      <p className="muted">{t('connect.cannotManage')}</p>
    ) : (
      <AccountForm
        idPrefix="connect"
        label={t('connect.title')}
        initial={EMPTY_FORM}
        editing={false}
        submitLabel={t('connect.submit')}
        submittingLabel={t('common.connecting')}
        onSubmit={create}
        onTest={testConnection}
      />
    );
  }
  return (
    <div className="page">
      <header className="page__header">
        <div>
          <h1>{t('connect.title')}</h1>
          <p className="page__subtitle">{t('connect.subtitle', { org: org.name })}</p>
        </div>
      </header>
      {body}
    </div>
  );
}
