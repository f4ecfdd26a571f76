/**
 * The one chart component: ECharts, loaded only when a chart is first shown (its code
 * is a chunk of its own), in the dashboard's light or dark palette. The figure carries
 * the caller's description for screen readers; put the numbers in text or a table too.
 *
 * @example
 *   <EChart label="Requests per day, last 30 days" height={260}
 *     option={{ xAxis: { type: 'category', data: days }, yAxis: { type: 'value' },
 *               series: [{ type: 'line', data: counts }] }} />
 */
import { lazy, Suspense } from 'react';
import { useTheme } from '../theme.ts';
import { Spinner } from '../ui/Spinner.tsx';
import type { ChartOption } from './echarts-setup.ts';

export type { ChartOption } from './echarts-setup.ts';

const EChartCanvas = lazy(() => import('./EChartCanvas.tsx'));

export function EChart({ option, label, height = 280 }: { option: ChartOption; label: string; height?: number }) {
  const [theme] = useTheme();
  return (
    <figure className="chart" role="img" aria-label={label} style={{ height, margin: 0 }}>
      <Suspense fallback={<Spinner label="Loading chart…" />}>
        <EChartCanvas option={option} theme={theme} height={height} />
      </Suspense>
    </figure>
  );
}
