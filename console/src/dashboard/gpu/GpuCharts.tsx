/**
 * The GPU screen's charts, each over one read and each with its figures behind "Show
 * data": fleet utilisation per UTC hour (minutes active, idle-held and idle, and the mean
 * utilisation), the heat map of every GPU by hour (mean utilisation; an hour it did not
 * report is blank), and the mean draw per GPU of each model with the energy it used.
 */
import { useQuery } from '@tanstack/react-query';
import { gpuHeatmapQuery, gpuPowerQuery, gpuUtilizationQuery } from '../../api/gpu/queries.ts';
import type { GpuScope } from '../../api/gpu/types.ts';
import { ChartWithData, Panel, QueryStates } from '../ui/Panel.tsx';
import { gpuName, hourLabel, minutesText, percentText } from './format.ts';

export const NO_GPU_DATA = 'No GPU reported in this range.';

/** The range's hours, and whether their labels need the day. */
export interface GpuHours {
  hours: string[];
  withDay: boolean;
}

export function UtilizationPanel({ scope, range }: { scope: GpuScope; range: GpuHours }) {
  const utilization = useQuery(gpuUtilizationQuery(scope));
  return (
    <Panel id="gpu-utilization" title="Fleet utilisation" meta="Per UTC hour: each GPU's minutes by state, and their mean utilisation" wide>
      <QueryStates query={utilization} loading="Loading utilisation…" failed="Utilisation could not be loaded" isEmpty={(data) => data.hours.length === 0} empty={NO_GPU_DATA}>
        {(data) => {
          const byHour = new Map(data.hours.map((hour) => [hour.hour, hour]));
          const at = (hour: string) => byHour.get(hour);
          return (
            <ChartWithData
              label={`Fleet utilisation per hour, ${range.hours.length} hours`}
              option={{
                animation: false,
                grid: { left: 48, right: 48, top: 56, bottom: 28 },
                legend: { top: 0, type: 'scroll' },
                tooltip: { trigger: 'axis' },
                xAxis: { type: 'category', data: range.hours.map((hour) => hourLabel(hour, range.withDay)) },
                yAxis: [
                  { type: 'value', name: 'GPU minutes' },
                  { type: 'value', name: '%', max: 100, splitLine: { show: false } },
                ],
                series: [
                  { type: 'bar', stack: 'state', name: 'Active', data: range.hours.map((hour) => at(hour)?.activeMinutes ?? 0) },
                  { type: 'bar', stack: 'state', name: 'Idle, memory held', data: range.hours.map((hour) => at(hour)?.idleHeldMinutes ?? 0) },
                  { type: 'bar', stack: 'state', name: 'Idle', data: range.hours.map((hour) => at(hour)?.idleMinutes ?? 0) },
                  { type: 'line', name: 'Mean utilisation', yAxisIndex: 1, data: range.hours.map((hour) => at(hour)?.meanUtilizationPct ?? null), connectNulls: false },
                ],
              }}
              columns={['Hour (UTC)', 'GPUs', 'Mean utilisation', 'Active', 'Idle, memory held', 'Idle']}
              rows={data.hours.map((hour) => ({
                key: hour.hour,
                cells: [
                  hourLabel(hour.hour, true),
                  String(hour.gpus),
                  percentText(hour.meanUtilizationPct),
                  minutesText(hour.activeMinutes),
                  minutesText(hour.idleHeldMinutes),
                  minutesText(hour.idleMinutes),
                ],
              }))}
            />
          );
        }}
      </QueryStates>
    </Panel>
  );
}

export function HeatmapPanel({ scope, range }: { scope: GpuScope; range: GpuHours }) {
  const heatmap = useQuery(gpuHeatmapQuery(scope));
  return (
    <Panel id="gpu-heatmap" title="GPUs by hour" meta="Mean utilisation of each GPU per UTC hour; blank where it did not report" wide>
      <QueryStates query={heatmap} loading="Loading the heat map…" failed="The heat map could not be loaded" isEmpty={(data) => data.gpus.length === 0} empty={NO_GPU_DATA}>
        {(data) => {
          const hourIndex = new Map(range.hours.map((hour, index) => [hour, index]));
          const gpuIndex = new Map(data.gpus.map((gpu, index) => [gpu.gpuId, index]));
          const names = new Map(data.gpus.map((gpu) => [gpu.gpuId, gpuName(gpu)]));
          const points = data.cells.flatMap((cell) => {
            const x = hourIndex.get(cell.hour);
            return x === undefined ? [] : [[x, gpuIndex.get(cell.gpuId)!, cell.meanUtilizationPct === null ? '-' : Math.round(cell.meanUtilizationPct)]];
          });
          return (
            <ChartWithData
              label={`Mean utilisation of ${data.gpus.length} GPUs per hour`}
              height={Math.max(180, 90 + data.gpus.length * 28)}
              option={{
                animation: false,
                grid: { left: 150, right: 16, top: 8, bottom: 64 },
                tooltip: { position: 'top' },
                xAxis: { type: 'category', data: range.hours.map((hour) => hourLabel(hour, range.withDay)), splitLine: { show: false } },
                yAxis: { type: 'category', data: data.gpus.map(gpuName), splitLine: { show: false } },
                visualMap: { min: 0, max: 100, calculable: false, orient: 'horizontal', left: 'center', bottom: 0, itemHeight: 120, text: ['100 %', '0 %'] },
                series: [{ type: 'heatmap', name: 'Mean utilisation (%)', data: points }],
              }}
              columns={['GPU', 'Hour (UTC)', 'Mean utilisation', 'Minutes reported', 'Minutes idle']}
              rows={data.cells.map((cell) => ({
                key: `${cell.gpuId}/${cell.hour}`,
                cells: [names.get(cell.gpuId) ?? cell.gpuId, hourLabel(cell.hour, true), percentText(cell.meanUtilizationPct), String(cell.minutes), String(cell.idleMinutes)],
              }))}
            />
          );
        }}
      </QueryStates>
    </Panel>
  );
}

export function PowerPanel({ scope, range }: { scope: GpuScope; range: GpuHours }) {
  const power = useQuery(gpuPowerQuery(scope));
  return (
    <Panel id="gpu-power" title="Power draw by model" meta="Mean draw of one GPU of each model per UTC hour">
      <QueryStates query={power} loading="Loading power draw…" failed="Power draw could not be loaded" isEmpty={(data) => data.models.length === 0} empty={NO_GPU_DATA}>
        {(data) => (
          <ChartWithData
            label={`Mean power draw per GPU of ${data.models.length} models, per hour`}
            option={{
              animation: false,
              grid: { left: 48, right: 16, top: 56, bottom: 28 },
              legend: { top: 0, type: 'scroll' },
              tooltip: { trigger: 'axis' },
              xAxis: { type: 'category', data: range.hours.map((hour) => hourLabel(hour, range.withDay)) },
              yAxis: { type: 'value', name: 'W' },
              series: data.models.map((model) => {
                const byHour = new Map(model.hours.map((hour) => [hour.hour, hour.meanPowerW]));
                return { type: 'line' as const, name: model.model ?? 'Unknown model', data: range.hours.map((hour) => byHour.get(hour) ?? null), connectNulls: false };
              })}
            }
            columns={['Model', 'GPUs', 'Mean draw per GPU', 'Energy']}
            rows={data.models.map((model) => {
              const reported = model.hours.filter((hour) => hour.meanPowerW !== null);
              const mean = reported.length === 0 ? null : reported.reduce((sum, hour) => sum + hour.meanPowerW!, 0) / reported.length;
              return {
                key: model.model ?? 'unknown',
                cells: [model.model ?? 'Unknown model', String(Math.max(0, ...model.hours.map((hour) => hour.gpus))), mean === null ? '—' : `${mean.toFixed(0)} W`, `${model.energyKWh.toFixed(3)} kWh`],
              };
            })}
          />
        )}
      </QueryStates>
    </Panel>
  );
}
