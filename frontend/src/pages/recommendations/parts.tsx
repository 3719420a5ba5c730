/** Small pieces both recommendation pages show: money with how it was computed, confidence, risk, copy. */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { Recommendation } from '../../api/types';
import { formatDecimal, formatMoney, isPositive } from '../../money';
import { formatNumber } from '../../format';
import { CONFIDENCE_LABELS, priceSourceLabel, riskLabel, statusLabel } from './labels';

const STATUS_TONES: Record<string, string> = {
  open: 'info',
  accepted: 'success',
  dismissed: 'muted',
  snoozed: 'muted',
  resolved: 'muted',
};

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge badge--${STATUS_TONES[status] ?? 'muted'}`}>{statusLabel(status)}</span>;
}

/** The instance (a link to its page) or the project the recommendation is about. */
export function TargetText({ rec }: { rec: Recommendation }) {
  const { t } = useTranslation();
  if (rec.instance !== null) {
    return (
      <span>
        <Link to={`/instances/${rec.instance}`}>{rec.instance_name ?? t('recommendations.instanceNumber', { id: rec.instance })}</Link>
        {rec.project_name && <span className="cell-sub muted"> · {rec.project_name}</span>}
      </span>
    );
  }
  return <span>{t('recommendations.projectTarget', { name: rec.project_name ?? t('common.unallocated') })}</span>;
}

/** An upsize's work per unit of money: BERT-base samples now and on the target type. */
function WorkPerMoney({ upsize }: { upsize: NonNullable<Recommendation['upsize']> }) {
  const { t } = useTranslation();
  const current = upsize.current_samples_per_currency_unit;
  if (current === null) return null;
  const target = upsize.target_samples_per_currency_unit;
  return (
    <div className="cell-sub muted small" data-testid="work-per-money">
      {target !== null && upsize.target_type
        ? t('recommendations.workPerMoney', {
            currency: upsize.currency,
            current: formatDecimal(current, 0),
            target: formatDecimal(target, 0),
            type: upsize.target_type,
          })
        : t('recommendations.workPerMoneyNow', { currency: upsize.currency, current: formatDecimal(current, 0) })}
    </div>
  );
}

/** What an upsize without a saving costs: more for the same work, the same, or no larger type to move to. */
function UpsizeText({ upsize, withFormula }: { upsize: NonNullable<Recommendation['upsize']>; withFormula: boolean }) {
  const { t } = useTranslation();
  const extra = upsize.monthly_extra_cost;
  const headline =
    upsize.reason === 'no_larger_type'
      ? t('recommendations.upsizeNoLargerType')
      : extra === null
        ? t('recommendations.upsizeNoPrice')
        : isPositive(extra)
          ? t('recommendations.upsizeExtraCost', { money: formatMoney(extra, upsize.currency) })
          : t('recommendations.upsizeSameCost');
  return (
    <div>
      <div className="cell-title" data-testid="upsize-cost">
        {headline}
      </div>
      {upsize.reason === 'no_larger_type' && <div className="cell-sub muted small">{t('recommendations.upsizeNoLargerTypeDetail')}</div>}
      <WorkPerMoney upsize={upsize} />
      {withFormula && (
        <div className="cell-sub muted small" data-testid="saving-formula">
          {upsize.formula}
        </div>
      )}
    </div>
  );
}

/**
 * "¥1,234.56 / month", with the formula and where the price came from underneath. A recommendation without
 * a saving (`saving: null`) never shows one: the data pipeline shows what is paid while the GPU waits (its own
 * figure, not a saving), an upsize what the same work costs more, anything else (a thermal alert) says it has none.
 */
export function SavingText({ rec, withFormula = true }: { rec: Recommendation; withFormula?: boolean }) {
  const { t } = useTranslation();
  const { saving, paid_while_waiting: waiting, upsize } = rec;
  if (saving === null && upsize) return <UpsizeText upsize={upsize} withFormula={withFormula} />;
  if (saving === null && waiting) {
    return (
      <div>
        <div className="cell-title" data-testid="paid-while-waiting">
          {waiting.monthly_amount === null
            ? t('recommendations.paidWhileWaitingNoPrice')
            : t('recommendations.paidWhileWaiting', { money: formatMoney(waiting.monthly_amount, waiting.currency) })}
        </div>
        <div className="cell-sub muted small" data-testid="gpu-hours-waiting">
          {t('recommendations.gpuHoursWaiting', { hours: formatNumber(Number(waiting.gpu_hours_per_month)) })}
        </div>
        {withFormula && (
          <div className="cell-sub muted small" data-testid="saving-formula">
            {t('recommendations.notASaving')} {waiting.formula}
            {' · '}
            {t('recommendations.priceFrom', { source: priceSourceLabel(waiting.price_source) })}
          </div>
        )}
      </div>
    );
  }
  if (saving === null) {
    return (
      <div className="cell-title muted" data-testid="no-saving">
        {t('recommendations.noSaving')}
      </div>
    );
  }
  return (
    <div>
      <div className="cell-title" data-testid="saving-amount">
        {t('recommendations.perMonth', { money: formatMoney(saving.monthly_amount, saving.currency) })}
      </div>
      {upsize && <WorkPerMoney upsize={upsize} />}
      {withFormula && (
        <div className="cell-sub muted small" data-testid="saving-formula">
          {saving.formula}
          {' · '}
          {t('recommendations.priceFrom', { source: priceSourceLabel(saving.price_source) })}
        </div>
      )}
    </div>
  );
}

export function ConfidenceText({ rec }: { rec: Recommendation }) {
  const { t } = useTranslation();
  const { confidence } = rec;
  return (
    <div>
      <div>{CONFIDENCE_LABELS[confidence.level] ?? confidence.level}</div>
      <div className="cell-sub muted small">
        {t('recommendations.confidenceDetail', {
          days: formatNumber(confidence.evidence_days),
          coverage: formatNumber(confidence.coverage_pct),
        })}
      </div>
    </div>
  );
}

/** Risk 0-4 as "2/4 · moderate" with the rule's reason. */
export function RiskText({ rec }: { rec: Recommendation }) {
  const { t } = useTranslation();
  const { risk } = rec;
  return (
    <div>
      <div>
        <span className={`rec-risk rec-risk--${risk.level}`} aria-hidden="true">
          {[0, 1, 2, 3].map((i) => (
            <span key={i} className={i < risk.level ? 'rec-risk__pip rec-risk__pip--on' : 'rec-risk__pip'} />
          ))}
        </span>
        {t('recommendations.riskLevel', { level: risk.level, label: riskLabel(risk.level) })}
      </div>
      <div className="cell-sub muted small">{risk.reason}</div>
    </div>
  );
}

async function writeClipboard(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // fall through: an insecure origin or a refused permission
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.appendChild(area);
  area.select();
  try {
    return document.execCommand('copy');
  } catch {
    return false;
  } finally {
    area.remove();
  }
}

/** A block of shell text (a command, cron lines) with a button that copies exactly that text. */
export function CopyableCode({ text, label, testId }: { text: string; label: string; testId?: string }) {
  const { t } = useTranslation();
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  return (
    <div className="rec-code" data-testid={testId}>
      <pre>
        <code>{text}</code>
      </pre>
      <button
        type="button"
        className="btn btn--small"
        aria-label={t('recommendations.copyLabel', { what: label })}
        onClick={async () => setState((await writeClipboard(text)) ? 'copied' : 'failed')}
      >
        {state === 'copied' ? t('recommendations.copied') : t('recommendations.copy')}
      </button>
      <span className="visually-hidden" role="status">
        {state === 'copied' ? t('recommendations.copiedStatus') : state === 'failed' ? t('recommendations.copyFailed') : ''}
      </span>
      {state === 'failed' && <span className="field-error">{t('recommendations.copyFailed')}</span>}
    </div>
  );
}
