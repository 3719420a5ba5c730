import { useMemo } from 'react';
import { Chart, type ChartOption } from '../components/Chart';
import type { Phase, PhaseFigures } from '../api/untypedEndpoints';
import { formatMoney, formatPercent } from '../money';
import { i18n } from '../i18n';
import { PHASE_COLORS, PHASE_LABELS, PHASES } from '../phases';

export interface CostByPhaseProps {
  phases: Partial<Record<Phase, PhaseFigures>>;
  currency: string;
}

interface TooltipParams {
  name?: string;
  percent?: number;
  data?: { cost?: string | null };
}

export function costByPhaseOption({ phases, currency }: CostByPhaseProps): ChartOption {
  return {
    tooltip: {
      trigger: 'item',
      formatter: (raw) => {
        const p = raw as TooltipParams;
        return `${p.name ?? ''}<br/>${i18n.t('chart.slice', { money: formatMoney(p.data?.cost, currency), pct: formatPercent((p.percent ?? 0) / 100) })}`;
      },
    },
    legend: { show: false },
    series: [
      {
        type: 'pie',
        name: i18n.t('chart.costByPhase', { currency }),
        radius: ['48%', '75%'],
        avoidLabelOverlap: true,
        label: { show: false },
        data: PHASES.filter((p) => Number(phases[p]?.cost ?? 0) > 0).map((p) => ({
          name: PHASE_LABELS[p],
          // The slice size only; every amount shown is the API's decimal string.
          value: Number(phases[p]?.cost ?? 0),
          cost: phases[p]?.cost ?? null,
          itemStyle: { color: PHASE_COLORS[p] },
        })),
      },
    ],
  };
}

export default function CostByPhaseChart({ phases, currency }: CostByPhaseProps) {
  const option = useMemo(() => costByPhaseOption({ phases, currency }), [phases, currency]);
  return <Chart option={option} height={220} ariaLabel={i18n.t('chart.costByPhaseLabel')} />;
}
