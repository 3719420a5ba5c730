import type { ReactNode } from 'react';
import type { CostSource, Phase } from '../api/untypedEndpoints';
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
  return (
    <div className={`stat${tone ? ` stat--${tone}` : ''}`} data-testid={testId}>
      <div className="stat__label">
        {label}
        {tone === 'waste' && <span className="badge badge--danger">waste</span>}
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
  return (
    <ul className="phase-legend" aria-label="Legend">
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
          Costs are <strong>estimated from list prices</strong>: no bill covers this instance for this period yet.
        </span>
      </div>
    );
  }
  if (source === 'unpriced') {
    return (
      <div className="alert alert--warning" data-testid="cost-source-note">
        <span>
          <strong>No price known</strong> for this instance (neither a bill nor a list price), so no money is shown;
          GPU-hours are still counted.
        </span>
      </div>
    );
  }
  return null;
}
