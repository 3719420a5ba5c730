import { sparklineShape, type SparklineScale } from './sparkline';

/** A tiny inline SVG line; `label` describes it for screen readers (the numbers are in the row). */
export function Sparkline({
  values,
  label,
  width = 96,
  height = 24,
  scale,
  testId,
}: {
  values: readonly (number | null)[];
  label: string;
  width?: number;
  height?: number;
  scale?: SparklineScale;
  testId?: string;
}) {
  const pad = 2;
  const shape = sparklineShape(values, width - pad * 2, height - pad * 2, scale);
  return (
    <svg
      className="sparkline"
      width={width}
      height={height}
      viewBox={`${-pad} ${-pad} ${width} ${height}`}
      role="img"
      aria-label={label}
      data-testid={testId}
      data-points={values.filter((v) => v != null).length}
    >
      {shape.segments.map((d) => (
        <path key={d} d={d} fill="none" stroke="currentColor" strokeWidth={1.5} strokeLinejoin="round" />
      ))}
      {shape.dots.map((p) => (
        <circle key={`${p.x},${p.y}`} cx={p.x} cy={p.y} r={1.75} fill="currentColor" />
      ))}
    </svg>
  );
}
