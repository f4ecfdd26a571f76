/**
 * The chart itself, behind EChart's lazy import: echarts-for-react's core component
 * over the trimmed ECharts of echarts-setup.ts. A theme change redraws the chart.
 */
import ReactEChartsCore from 'echarts-for-react/esm/core';
import { type ChartOption, echarts } from './echarts-setup.ts';

const SVG = { renderer: 'svg' } as const;

export default function EChartCanvas({ option, theme, height }: { option: ChartOption; theme: 'light' | 'dark'; height: number }) {
  return <ReactEChartsCore echarts={echarts} option={option} theme={theme} opts={SVG} notMerge style={{ height, width: '100%' }} />;
}
