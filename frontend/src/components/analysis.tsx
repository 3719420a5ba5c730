import type { ReactNode } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import type { CostSource, Phase } from '../api/types';
import { PHASE_COLORS, PHASE_DESCRIPTIONS, PHASE_LABELS, PHASES } from '../phases';

/** A figure with its label, e.g. total cost or idle money. `tone="waste"` marks money spent on nothing. */
export function StatCard({
  label,
  value,
  detail,
  tone,
  testId,
}: {
  label: string;
  value: ReactNode;
  detail?: ReactNode;
  tone?: 'waste';
  testId?: string;
}) {
  const { t } = useTranslation();
  return (
    <div className={`stat${tone ? ` stat--${tone}` : ''}`} data-testid={testId}>
      <div className="stat__label">
        {label}
        {tone === 'waste' && <span className="badge badge--danger">{t('common.waste')}</span>}
      </div>
      <div className="stat__value">{value}</div>
      {detail && <div className="stat__detail muted">{detail}</div>}
    </div>
  );
}

export function PhaseSwatch({ phase }: { phase: Phase }) {
  return <span className="swatch" style={{ background: PHASE_COLORS[phase] }} aria-hidden="true" />;
}

/** The chart's legend in words, with what each phase means (as a tooltip). */
export function PhaseLegend({ phases = PHASES }: { phases?: Phase[] }) {
  const { t } = useTranslation();
  return (
    <ul className="phase-legend" aria-label={t('common.legend')}>
      {phases.map((p) => (
        <li key={p} title={PHASE_DESCRIPTIONS[p]}>
          <PhaseSwatch phase={p} />
          {PHASE_LABELS[p]}
        </li>
      ))}
    </ul>
  );
}

/** Says where the money comes from when it is not from the bills. */
export function CostSourceNote({ source }: { source: CostSource }) {
  if (source === 'list_price') {
    return (
      <div className="alert alert--warning" data-testid="cost-source-note">
        <span>
          <Trans i18nKey="common.costSource.listPrice" components={{ strong: <strong /> }} />
        </span>
      </div>
    );
  }
  if (source === 'unpriced') {
    return (
      <div className="alert alert--warning" data-testid="cost-source-note">
        <span>
          <Trans i18nKey="common.costSource.unpriced" components={{ strong: <strong /> }} />
        </span>
      </div>
    );
  }
  return null;
}
