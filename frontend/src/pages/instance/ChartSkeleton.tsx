/** A grey pulsing block the size of the chart to come, so the page does not jump when it is drawn. */
export function ChartSkeleton({ height, label }: { height: number; label: string }) {
  return <div className="instance-skeleton" style={{ height }} role="status" aria-busy="true" aria-label={label} />;
}
