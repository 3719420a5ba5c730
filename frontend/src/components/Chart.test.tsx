import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, render } from '@testing-library/react';
import * as echarts from 'echarts/core';

const instance = { setOption: vi.fn(), resize: vi.fn(), dispose: vi.fn(), on: vi.fn() };
vi.mock('echarts/core', () => ({ use: vi.fn(), init: vi.fn(() => instance) }));

const { Chart } = await import('./Chart');

afterEach(() => {
  document.documentElement.removeAttribute('data-theme');
  vi.mocked(echarts.init).mockClear();
  instance.setOption.mockClear();
  instance.dispose.mockClear();
  instance.resize.mockClear();
  instance.on.mockClear();
});

describe('<Chart>', () => {
  it('sets the option, resizes with the window and disposes on unmount', () => {
    const option = { xAxis: { type: 'category' as const, data: ['a'] }, yAxis: { type: 'value' as const }, series: [] };
    const { unmount } = render(<Chart option={option} />);

    // The page's own background shows through, in either theme.
    expect(instance.setOption).toHaveBeenCalledWith({ backgroundColor: 'transparent', ...option }, { notMerge: true });
    window.dispatchEvent(new Event('resize'));
    expect(instance.resize).toHaveBeenCalledTimes(1);

    unmount();
    expect(instance.dispose).toHaveBeenCalledTimes(1);
    window.dispatchEvent(new Event('resize'));
    expect(instance.resize).toHaveBeenCalledTimes(1);
  });

  it('draws with the dark theme when the page is dark, and again when the theme changes', async () => {
    const option = { series: [] };
    render(<Chart option={option} />);
    expect(vi.mocked(echarts.init).mock.calls[0]![1]).toBeUndefined();

    await act(async () => {
      document.documentElement.setAttribute('data-theme', 'dark');
      await new Promise((resolve) => setTimeout(resolve, 0)); // MutationObserver callbacks are microtasks.
    });
    expect(instance.dispose).toHaveBeenCalledTimes(1);
    expect(vi.mocked(echarts.init).mock.calls[1]![1]).toBe('dark');
    expect(instance.setOption).toHaveBeenLastCalledWith({ backgroundColor: 'transparent', ...option }, { notMerge: true });
  });

  it('names itself and says when ECharts has finished drawing', () => {
    const { container } = render(<Chart option={{ series: [] }} name="spend-over-time" />);
    const el = container.querySelector('[data-chart="spend-over-time"]')!;
    expect(el.getAttribute('data-drawn')).toBeNull();
    const [event, onFinished] = instance.on.mock.calls[0]! as [string, () => void];
    expect(event).toBe('finished');
    onFinished();
    expect(el.getAttribute('data-drawn')).toBe('true');
  });
});
