/**
 * The colour scale of the utilization heatmaps (an instance's hour of week, the fleet's), per theme.
 *
 * Light: near white (0 %) to dark blue (100 %), on white cards. Dark: a mid blue (0 %) to near white
 * (100 %), so even an idle cell stands out from the dark card (at least 3:1, WCAG's contrast for
 * graphics) instead of glaring as a white tile; busier is brighter there. The number written in a cell
 * is black or white, whichever contrasts more with the cell (at least 4.5:1 either way).
 */

export type Rgb = readonly [number, number, number];
export type ResolvedTheme = 'light' | 'dark';

export const HEAT_SCALES: Record<ResolvedTheme, { low: Rgb; high: Rgb }> = {
  light: { low: [238, 243, 251], high: [31, 63, 138] },
  dark: { low: [79, 108, 159], high: [219, 230, 255] },
};

/** The cards the heatmaps are drawn on (styles.css: --surface). */
export const CARD_SURFACE: Record<ResolvedTheme, Rgb> = { light: [255, 255, 255], dark: [23, 30, 39] };

const BLACK: Rgb = [0, 0, 0];
const WHITE: Rgb = [255, 255, 255];

function clampShare(pct: number): number {
  return Math.min(1, Math.max(0, pct / 100));
}

export function heatRgb(pct: number, theme: ResolvedTheme = 'light'): Rgb {
  const { low, high } = HEAT_SCALES[theme];
  const t = clampShare(pct);
  return [0, 1, 2].map((i) => Math.round(low[i]! + (high[i]! - low[i]!) * t)) as unknown as Rgb;
}

export function rgbCss([r, g, b]: Rgb): string {
  return `rgb(${r}, ${g}, ${b})`;
}

export function rgbHex(rgb: Rgb): string {
  return `#${rgb.map((c) => c.toString(16).padStart(2, '0')).join('')}`;
}

/** WCAG 2 relative luminance. */
export function luminance(rgb: Rgb): number {
  const [r, g, b] = rgb.map((c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG 2 contrast ratio, 1 (none) to 21 (black on white). */
export function contrastRatio(a: Rgb, b: Rgb): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** The cell's background at `pct` % in `theme`. */
export function heatColor(pct: number, theme: ResolvedTheme = 'light'): string {
  return rgbCss(heatRgb(pct, theme));
}

/** The colour of the number written on a cell: black or white, whichever reads better on it. */
export function heatTextRgb(pct: number, theme: ResolvedTheme = 'light'): Rgb {
  const cell = heatRgb(pct, theme);
  return contrastRatio(cell, BLACK) >= contrastRatio(cell, WHITE) ? BLACK : WHITE;
}

/** The two ends of the scale as hex colours (ECharts' visualMap). */
export function heatScaleHex(theme: ResolvedTheme): [string, string] {
  return [rgbHex(HEAT_SCALES[theme].low), rgbHex(HEAT_SCALES[theme].high)];
}
