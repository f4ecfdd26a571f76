// How GPU figures read on the GPU screen: the range a reader picks (whole UTC hours up to
// the next one), hours as labels, minutes as durations, memory in GiB, £ from the API's
// decimal strings (unpriced when null, never £0), and a GPU by host and index.
import { decimalToMicros, formatMoney, money } from '@spendgate/core';
import type { GpuRef } from '../../api/gpu/types.ts';

const HOUR_MS = 3_600_000;

export const RANGES = { day: { label: 'Last 24 hours', hours: 24 }, week: { label: 'Last 7 days', hours: 7 * 24 }, month: { label: 'Last 31 days', hours: 31 * 24 } } as const;
export type RangeName = keyof typeof RANGES;

/** The range's UTC hours, ending at the next whole hour after `now` (so the current hour is in it). */
export function rangeOf(name: RangeName, now: number): { from: string; to: string; hours: string[] } {
  const to = Math.floor(now / HOUR_MS) * HOUR_MS + HOUR_MS;
  const from = to - RANGES[name].hours * HOUR_MS;
  return { from: new Date(from).toISOString(), to: new Date(to).toISOString(), hours: Array.from({ length: RANGES[name].hours }, (_, i) => new Date(from + i * HOUR_MS).toISOString()) };
}

/** An hour as a chart's axis shows it: 14:00 within a day, 11-26 14:00 over longer ranges. */
export const hourLabel = (hour: string, withDay: boolean) => (withDay ? `${hour.slice(5, 10)} ${hour.slice(11, 16)}` : hour.slice(11, 16));

/** A moment as a table shows it, in UTC: 2026-11-26 14:05 UTC. */
export const timeText = (at: string) => `${at.slice(0, 10)} ${at.slice(11, 16)} UTC`;

/** 45 min, 2 h 5 min. */
export function minutesText(minutes: number): string {
  if (minutes < 60) return `${minutes} min`;
  const rest = minutes % 60;
  return `${Math.floor(minutes / 60)} h${rest === 0 ? '' : ` ${rest} min`}`;
}

/** 39287 MiB → 38.4 GiB; under a GiB in MiB. */
export function memoryText(mib: number | null): string {
  if (mib === null) return '—';
  return mib < 1024 ? `${Math.round(mib)} MiB` : `${(mib / 1024).toFixed(1)} GiB`;
}

/** £ from a GBP decimal string; "Unpriced" when the model has no price. */
export function gbpText(decimal: string | null): string {
  if (decimal === null) return 'Unpriced';
  const micros = decimalToMicros(decimal);
  return micros === undefined ? `£${decimal}` : formatMoney(money(micros, 'GBP'));
}

export const percentText = (value: number | null) => (value === null ? '—' : `${value.toFixed(1)} %`);

/** gpu-node-1 · GPU 0 (the UUID's start when neither is reported). */
export const gpuName = (gpu: Pick<GpuRef, 'host' | 'index' | 'gpuUuid'>) =>
  gpu.host === null && gpu.index === null ? gpu.gpuUuid.slice(0, 12) : `${gpu.host ?? 'unknown host'} · GPU ${gpu.index ?? '?'}`;
