import { useTranslation } from 'react-i18next';
import { sparklineShape, type SparklineScale } from './sparkline';

/**
 * A tiny inline SVG line; `label` describes it for screen readers (the numbers are in the row). With
 * `lastIsPartial` (the range ends today) the last point is today so far: hollow, joined by a dashed line,
 * titled, and said in the label.
 */
export function Sparkline({
  values,
  label,
  width = 96,
  height = 24,
  scale,
  lastIsPartial = false,
  testId,
}: {
  values: readonly (number | null)[];
  label: string;
  width?: number;
  height?: number;
  scale?: SparklineScale;
  lastIsPartial?: boolean;
  testId?: string;
}) {
  const { t } = useTranslation();
  const pad = 2;
  const shape = sparklineShape(values, width - pad * 2, height - pad * 2, scale, lastIsPartial);
  const partial = shape.partial ?? null;
  return (
    <svg
      className="sparkline"
      width={width}
      height={height}
      viewBox={`${-pad} ${-pad} ${width} ${height}`}
      role="img"
      aria-label={partial ? t('sparkline.withToday', { label }) : label}
      data-testid={testId}
      data-points={values.filter((v) => v != null).length}
    >
      {shape.segments.map((d) => (
        <path key={d} d={d} fill="none" stroke="currentColor" strokeWidth={1.5} strokeLinejoin="round" />
      ))}
      {shape.dots.map((p) => (
        <circle key={`${p.x},${p.y}`} cx={p.x} cy={p.y} r={1.75} fill="currentColor" />
      ))}
      {shape.partialLink && (
        <path className="sparkline__partial-link" d={shape.partialLink} fill="none" stroke="currentColor" strokeWidth={1.5} strokeDasharray="2 2" />
      )}
      {partial && (
        <circle
          className="sparkline__partial"
          data-partial="today"
          cx={partial.x}
          cy={partial.y}
          r={2.25}
          stroke="currentColor"
          strokeWidth={1.25}
        >
          <title>{t('sparkline.todaySoFar')}</title>
        </circle>
      )}
    </svg>
  );
}
