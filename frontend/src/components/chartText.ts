/**
 * The one way text reaches ECharts' HTML.
 *
 * ECharts draws charts on a canvas, but a tooltip is a `<div>` whose innerHTML is whatever the formatter
 * returns. Series names, category (axis) names, data names and value labels come from data: project names
 * (anyone with a write key can rename one), Tencent Cloud tag values and instance names (anyone in the
 * cloud account can set them). Put into that HTML unescaped, `<img src=x onerror=...>` runs in the owner's
 * session. So every chart's tooltip is built here: each piece of text is escaped, and the only markup is
 * ours (`<br/>`) or ECharts' own colour marker (built by ECharts from the series colour, which it escapes).
 *
 * Legends, axis labels and bar labels are drawn on the canvas as text, never parsed as HTML; they need no
 * escaping (escaping them would show `&lt;` on the chart).
 */

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** The text as HTML that shows it literally (also safe inside a quoted attribute). */
export function escapeHtml(text: unknown): string {
  return String(text ?? '').replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

/** One line of a tooltip: plain text, after ECharts' colour marker of its series when given. */
export interface TooltipLine {
  /** `params.marker` as ECharts passes it to a formatter: its own HTML, a coloured dot. */
  marker?: string;
  text: string;
}

/** A tooltip's HTML: its lines escaped, one per row. */
export function tooltipHtml(lines: readonly (string | TooltipLine)[]): string {
  return lines
    .map((line) => (typeof line === 'string' ? escapeHtml(line) : `${line.marker ?? ''}${escapeHtml(line.text)}`))
    .join('<br/>');
}

/** What ECharts passes a tooltip formatter about one series' point (the fields read here). */
export interface TooltipParam {
  seriesName?: string;
  seriesIndex?: number;
  dataIndex?: number;
  name?: string;
  axisValueLabel?: string;
  marker?: string;
  value?: unknown;
}

/** The formatter's argument as a list: an axis tooltip gets one param per series, an item tooltip one. */
export function tooltipParams(raw: unknown): TooltipParam[] {
  return (Array.isArray(raw) ? raw : [raw]) as TooltipParam[];
}

/**
 * The formatter of an axis tooltip that lists each series' value under the category: what ECharts shows
 * by default, built here so that every name is escaped the same way. Series without a value at the
 * category (null, as in a stack split in two series) are left out.
 */
export function axisTooltipFormatter(formatValue: (value: number) => string = String): (raw: unknown) => string {
  return (raw) => {
    const params = tooltipParams(raw);
    const lines = params
      .filter((p) => p.value !== null && p.value !== undefined && p.value !== '')
      .map((p) => ({ marker: p.marker, text: `${p.seriesName ?? ''}: ${formatValue(Number(p.value))}` }));
    return tooltipHtml([params[0]?.axisValueLabel ?? params[0]?.name ?? '', ...lines]);
  };
}

/** The formatter of an item tooltip: the series' name, then the point's name and value, escaped. */
export function itemTooltipFormatter(formatValue: (value: unknown) => string = String): (raw: unknown) => string {
  return (raw) => {
    const p = tooltipParams(raw)[0];
    if (!p) return '';
    const value = formatValue(p.value);
    return tooltipHtml([p.seriesName ?? '', { marker: p.marker, text: p.name ? `${p.name}: ${value}` : value }]);
  };
}

interface TooltipOption {
  trigger?: string;
  formatter?: unknown;
}

/**
 * The option with an escaping formatter on every tooltip that has none, so a chart whose builder forgot
 * one still shows its names as text. (ECharts' own default escapes too, today; this does not depend on it.)
 */
export function withEscapingTooltips<T extends { tooltip?: unknown }>(option: T): T {
  const tooltip = option.tooltip as TooltipOption | TooltipOption[] | undefined;
  if (!tooltip) return option;
  const escaping = (t: TooltipOption): TooltipOption =>
    t.formatter ? t : { ...t, formatter: t.trigger === 'axis' ? axisTooltipFormatter() : itemTooltipFormatter() };
  return { ...option, tooltip: Array.isArray(tooltip) ? tooltip.map(escaping) : escaping(tooltip) };
}
