/**
 * Where idle GPUs cost the team: the idle list (each stretch of idle minutes, newest
 * first: the GPU, since when, the memory held, the process nvidia-smi saw holding it, and
 * what the price table makes of it) and the £ wasted over the range per cluster, host, GPU
 * or process. A model without a price is "Unpriced", never £0.
 */
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { gpuIdleQuery, gpuWasteQuery } from '../../api/gpu/queries.ts';
import type { GpuScope, GpuWaste, GpuWasteFigures } from '../../api/gpu/types.ts';
import { Badge } from '../ui/Badge.tsx';
import { SelectInput } from '../ui/Field.tsx';
import { Panel, QueryStates } from '../ui/Panel.tsx';
import { gbpText, gpuName, memoryText, minutesText, timeText } from './format.ts';

export function IdlePanel({ scope }: { scope: GpuScope }) {
  const idle = useQuery(gpuIdleQuery(scope));
  return (
    <Panel id="gpu-idle" title="Idle GPUs" meta="Each stretch below the idle threshold for the whole idle window, newest first" wide>
      <QueryStates query={idle} loading="Loading idle GPUs…" failed="Idle GPUs could not be loaded" isEmpty={(data) => data.stretches.length === 0} empty="No GPU was idle in this range.">
        {(data) => (
          // Focusable, so a keyboard can scroll it sideways on a phone.
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region is reached by keyboard (WCAG 2.1.1).
          <section className="table-scroll data-table-scroll" tabIndex={0} aria-label="Idle stretches, newest first">
            <table className="data-table gpu-table">
              <caption className="visually-hidden">Idle stretches, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">GPU</th>
                  <th scope="col">Since</th>
                  <th scope="col">For</th>
                  <th scope="col">Memory held</th>
                  <th scope="col">Process</th>
                  <th scope="col">Cost</th>
                </tr>
              </thead>
              <tbody>
                {data.stretches.map((stretch) => (
                  <tr key={`${stretch.gpuId}/${stretch.start}`}>
                    <th scope="row">
                      {gpuName(stretch)}
                      <span className="gpu-table__sub">
                        {stretch.model ?? 'Unknown model'} · {stretch.cluster}
                      </span>
                    </th>
                    <td>
                      {timeText(stretch.start)}
                      {stretch.ongoing && <> <Badge>Still idle</Badge></>}
                    </td>
                    <td>{minutesText(stretch.heldMinutes + stretch.idleMinutes)}</td>
                    <td>{stretch.heldMinutes > 0 ? memoryText(stretch.peakMemoryMiB) : 'None'}</td>
                    <td>{stretch.process ? `${stretch.process.name} (pid ${stretch.process.pid})` : '—'}</td>
                    <td>{gbpText(stretch.wasted)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        )}
      </QueryStates>
    </Panel>
  );
}

type WasteView = 'cluster' | 'host' | 'gpu' | 'process';
const VIEW_LABELS: Record<WasteView, string> = { cluster: 'Cluster', host: 'Host', gpu: 'GPU', process: 'Process' };

function wasteRows(data: GpuWaste, view: WasteView): { key: string; name: string; figures: GpuWasteFigures }[] {
  if (view === 'cluster') return data.clusters.map((row) => ({ key: row.cluster, name: row.cluster, figures: row }));
  if (view === 'host') return data.hosts.map((row) => ({ key: `${row.cluster}/${row.host}`, name: `${row.host ?? 'Unknown host'} (${row.cluster})`, figures: row }));
  if (view === 'gpu') return data.gpus.map((row) => ({ key: row.gpuId, name: `${gpuName(row)} (${row.model ?? 'unknown model'})`, figures: row }));
  return data.processes.map((row) => ({
    key: `${row.gpuId}/${row.pid}`,
    name: row.pid === null ? `No process reported, ${gpuName(row)}` : `${row.processName} (pid ${row.pid}), ${gpuName(row)}`,
    figures: row,
  }));
}

export function WastePanel({ scope }: { scope: GpuScope }) {
  const waste = useQuery(gpuWasteQuery(scope));
  const [view, setView] = useState<WasteView>('cluster');
  return (
    <Panel id="gpu-waste" title="£ wasted by idle GPUs" meta={waste.data && `${gbpText(waste.data.total.wasted)} in this range`}>
      <QueryStates query={waste} loading="Loading waste…" failed="Waste could not be loaded" isEmpty={(data) => data.total.heldMinutes + data.total.idleMinutes === 0} empty="No idle time in this range.">
        {(data) => (
          <>
            <div className="gpu-toolbar">
              <SelectInput label="By" id="gpu-waste-view" value={view} onChange={(event) => setView(event.target.value as WasteView)}>
                {(Object.keys(VIEW_LABELS) as WasteView[]).map((name) => (
                  <option key={name} value={name}>
                    {VIEW_LABELS[name]}
                  </option>
                ))}
              </SelectInput>
            </div>
            {data.total.unpricedMinutes > 0 && (
              <p className="overview-note" role="note">
                {minutesText(data.total.unpricedMinutes)} of idle time is on GPU models without a price: set one in the settings below to count them.
              </p>
            )}
            {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region is reached by keyboard (WCAG 2.1.1). */}
            <section className="table-scroll data-table-scroll" tabIndex={0} aria-label={`£ wasted by ${VIEW_LABELS[view].toLowerCase()}`}>
              <table className="data-table gpu-table--figures">
                <caption className="visually-hidden">£ wasted by {VIEW_LABELS[view].toLowerCase()}</caption>
                <thead>
                  <tr>
                    <th scope="col">{VIEW_LABELS[view]}</th>
                    <th scope="col" className="data-table__figure">
                      Idle, memory held
                    </th>
                    <th scope="col" className="data-table__figure">
                      Idle
                    </th>
                    <th scope="col" className="data-table__figure">
                      Wasted
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {wasteRows(data, view).map((row) => (
                    <tr key={row.key}>
                      <th scope="row">{row.name}</th>
                      <td className="data-table__figure">{minutesText(row.figures.heldMinutes)}</td>
                      <td className="data-table__figure">{minutesText(row.figures.idleMinutes)}</td>
                      <td className="data-table__figure">{gbpText(row.figures.wasted)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </section>
          </>
        )}
      </QueryStates>
    </Panel>
  );
}
