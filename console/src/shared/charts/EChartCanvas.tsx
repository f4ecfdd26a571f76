/**
 * The chart itself, behind EChart's lazy import: echarts-for-react's core component
 * over the trimmed ECharts of echarts-setup.ts. A theme change redraws the chart; a
 * reader who asks for reduced motion gets it drawn at once, without animation.
 */
import ReactEChartsCore from 'echarts-for-react/esm/core';
import { useMemo } from 'react';
import { type ChartOption, echarts } from './echarts-setup.ts';

const SVG = { renderer: 'svg' } as const;

const prefersReducedMotion = () => typeof window !== 'undefined' && window.matchMedia?.('(prefers-reduced-motion: reduce)').matches === true;

export default function EChartCanvas({ option, theme, height }: { option: ChartOption; theme: 'light' | 'dark'; height: number }) {
  const shown = useMemo(() => (prefersReducedMotion() ? { ...option, animation: false } : option), [option]);
  return <ReactEChartsCore echarts={echarts} option={shown} theme={theme} opts={SVG} notMerge style={{ height, width: '100%' }} />;
}
