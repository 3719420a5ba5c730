import { describe, expect, it, vi } from 'vitest';
import { render } from '@testing-library/react';

const instance = { setOption: vi.fn(), resize: vi.fn(), dispose: vi.fn() };
vi.mock('echarts/core', () => ({ use: vi.fn(), init: vi.fn(() => instance) }));

const { Chart } = await import('./Chart');

describe('<Chart>', () => {
  it('sets the option, resizes with the window and disposes on unmount', () => {
    const option = { xAxis: { type: 'category' as const, data: ['a'] }, yAxis: { type: 'value' as const }, series: [] };
    const { unmount } = render(<Chart option={option} />);

    expect(instance.setOption).toHaveBeenCalledWith(option, { notMerge: true });
    window.dispatchEvent(new Event('resize'));
    expect(instance.resize).toHaveBeenCalledTimes(1);

    unmount();
    expect(instance.dispose).toHaveBeenCalledTimes(1);
    window.dispatchEvent(new Event('resize'));
    expect(instance.resize).toHaveBeenCalledTimes(1);
  });
});
