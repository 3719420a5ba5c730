import { describe, expect, it } from 'vitest';
import { CARD_SURFACE, contrastRatio, heatRgb, heatTextRgb, type ResolvedTheme } from './heatScale';

const PCTS = Array.from({ length: 101 }, (_, p) => p);
const THEMES: ResolvedTheme[] = ['light', 'dark'];

describe('the heatmap colour scale', () => {
  it('measures contrast as WCAG does', () => {
    expect(contrastRatio([0, 0, 0], [255, 255, 255])).toBeCloseTo(21, 5);
    expect(contrastRatio([23, 30, 39], [23, 30, 39])).toBe(1);
  });

  it('keeps every cell of the dark theme, idle ones first, apart from the dark card (3:1)', () => {
    const worst = Math.min(...PCTS.map((p) => contrastRatio(heatRgb(p, 'dark'), CARD_SURFACE.dark)));
    expect(worst).toBeGreaterThanOrEqual(3);
    // The old scale drew 0 % as a near-white tile whatever the theme.
    expect(heatRgb(0, 'dark')).not.toEqual(heatRgb(0, 'light'));
  });

  it('writes every cell number readably (4.5:1) in both themes', () => {
    for (const theme of THEMES) {
      const worst = Math.min(...PCTS.map((p) => contrastRatio(heatRgb(p, theme), heatTextRgb(p, theme))));
      expect(worst, theme).toBeGreaterThanOrEqual(4.5);
    }
  });

  it('goes from idle to busy in a visible step in both themes', () => {
    for (const theme of THEMES) expect(contrastRatio(heatRgb(0, theme), heatRgb(100, theme)), theme).toBeGreaterThan(3);
  });
});
