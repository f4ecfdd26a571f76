// @vitest-environment happy-dom
// The chart wrapper: a described figure at once, ECharts loaded behind it, in the theme
// the dashboard shows (a change of theme redraws it in the other palette).
import { act, cleanup, render, screen, waitFor } from '@testing-library/react';
import { afterEach, expect, it } from 'vitest';
import { setTheme, THEME_STORAGE_KEY } from '../theme.ts';
import { EChart } from './EChart.tsx';

afterEach(() => {
  cleanup();
  localStorage.removeItem(THEME_STORAGE_KEY);
});

it('draws the option in the current theme inside a described figure', async () => {
  setTheme('dark');
  const { container } = render(
    <EChart label="Requests per day" height={200} option={{ xAxis: { type: 'category', data: ['Mon', 'Tue'] }, yAxis: { type: 'value' }, series: [{ type: 'bar', data: [3, 5] }] }} />,
  );
  expect(screen.getByRole('img', { name: 'Requests per day' })).toBeTruthy();
  // ECharts is imported lazily: on a loaded machine that takes more than waitFor's default second
  await waitFor(() => expect(container.querySelector('.echarts-for-react')).not.toBeNull(), { timeout: 10_000 });
  const chart = container.querySelector<HTMLElement>('.echarts-for-react')!;
  expect(chart.style.height).toBe('200px');
  // the bars, in the dark palette's first colour
  await waitFor(() => expect(chart.querySelectorAll('svg path[fill="#a78bfa"]').length).toBe(2));
  act(() => setTheme('light'));
  await waitFor(() => expect(chart.querySelectorAll('svg path[fill="#7c3aed"]').length).toBe(2));
});
