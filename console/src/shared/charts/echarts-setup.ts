/**
 * ECharts with only what the dashboard draws (line, bar and heat-map charts; grid, tooltip,
 * legend, dataset, the heat map's visual map; the SVG renderer: light on phones, and drawn without a canvas in tests) and the two palettes, named after the themes.
 * Imported only by the lazily loaded canvas, except for its option type.
 */
import { BarChart, type BarSeriesOption, HeatmapChart, type HeatmapSeriesOption, LineChart, type LineSeriesOption } from 'echarts/charts';
import {
  type DatasetComponentOption,
  DatasetComponent,
  type GridComponentOption,
  GridComponent,
  type LegendComponentOption,
  LegendComponent,
  type TooltipComponentOption,
  TooltipComponent,
  type VisualMapComponentOption,
  VisualMapComponent,
} from 'echarts/components';
import * as echarts from 'echarts/core';
import { SVGRenderer } from 'echarts/renderers';

export type ChartOption = echarts.ComposeOption<
  | BarSeriesOption
  | LineSeriesOption
  | HeatmapSeriesOption
  | GridComponentOption
  | TooltipComponentOption
  | LegendComponentOption
  | DatasetComponentOption
  | VisualMapComponentOption
>;

echarts.use([BarChart, LineChart, HeatmapChart, GridComponent, TooltipComponent, LegendComponent, DatasetComponent, VisualMapComponent, SVGRenderer]);

const SERIES_COLOURS = { light: ['#7c3aed', '#0891b2', '#db2777', '#ca8a04', '#059669'], dark: ['#a78bfa', '#22d3ee', '#f472b6', '#facc15', '#34d399'] };

function palette(theme: 'light' | 'dark') {
  const ink = theme === 'dark' ? '#e2e8f0' : '#0f172a';
  const muted = theme === 'dark' ? '#a3b1c6' : '#475569';
  const line = theme === 'dark' ? '#2b3866' : '#e2e8f0';
  const axis = { axisLine: { lineStyle: { color: line } }, axisTick: { lineStyle: { color: line } }, axisLabel: { color: muted }, splitLine: { lineStyle: { color: line } } };
  return {
    color: SERIES_COLOURS[theme],
    backgroundColor: 'transparent',
    textStyle: { color: ink },
    legend: { textStyle: { color: muted } },
    tooltip: { backgroundColor: theme === 'dark' ? '#131a36' : '#ffffff', borderColor: line, textStyle: { color: ink } },
    categoryAxis: axis,
    valueAxis: axis,
    timeAxis: axis,
  };
}

echarts.registerTheme('light', palette('light'));
echarts.registerTheme('dark', palette('dark'));

export { echarts };
