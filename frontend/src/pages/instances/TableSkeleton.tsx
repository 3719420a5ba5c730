/** Placeholder rows while a table loads: the page keeps its shape instead of jumping. */
export function TableSkeleton({ label, testId, rows = 6 }: { label: string; testId?: string; rows?: number }) {
  return (
    <div role="status" aria-live="polite" aria-label={label} data-testid={testId}>
      {Array.from({ length: rows }, (_, i) => (
        <div key={i} className="rec-skeleton__row" aria-hidden="true" />
      ))}
    </div>
  );
}
