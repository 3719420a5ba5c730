import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';

/**
 * The two bases of spend (FOCUS): amortized (EffectiveCost: a prepaid purchase or refund spread over the
 * days it covers), what the dashboards show by default, and billed (BilledCost: as invoiced, on the day it
 * was charged), what reconciles with the invoice.
 */
export type CostBasis = 'amortized' | 'billed';
export const COST_BASES: CostBasis[] = ['amortized', 'billed'];
export const DEFAULT_BASIS: CostBasis = 'amortized';

/** The URL parameter of the toggle, so a shared link shows the same basis. */
export const BASIS_PARAM = 'basis';

export function useCostBasis(): [CostBasis, (next: CostBasis) => void] {
  const [params, setParams] = useSearchParams();
  const asked = params.get(BASIS_PARAM);
  const basis: CostBasis = asked === 'billed' ? 'billed' : DEFAULT_BASIS;
  const choose = (next: CostBasis) => {
    const copy = new URLSearchParams(params);
    if (next === DEFAULT_BASIS) copy.delete(BASIS_PARAM);
    else copy.set(BASIS_PARAM, next);
    setParams(copy, { replace: true });
  };
  return [basis, choose];
}

/** Which basis the page's money is on, and the switch to the other one. */
export function CostBasisToggle({ value, onChange }: { value: CostBasis; onChange: (next: CostBasis) => void }) {
  const { t } = useTranslation();
  return (
    <div className="cost-basis" data-testid="cost-basis">
      <div className="segmented" role="group" aria-label={t('costBasis.label')}>
        {COST_BASES.map((basis) => (
          <button
            key={basis}
            type="button"
            className={`btn btn--small${basis === value ? ' btn--selected' : ''}`}
            aria-pressed={basis === value}
            title={t(`costBasis.help.${basis}`)}
            onClick={() => onChange(basis)}
          >
            {t(`costBasis.${basis}`)}
          </button>
        ))}
      </div>
      <span className="muted" data-testid="cost-basis-note">
        {t(`costBasis.shown.${value}`)}
      </span>
    </div>
  );
}
