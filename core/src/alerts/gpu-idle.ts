// Idle-GPU alerts (kind 'gpu-idle'): a GPU whose newest minutes hold memory at next to no
// utilisation for at least the team's idle window alerts once per such stretch (its GPU and
// first minute are the dedupe key), naming the GPU by index and host, the memory held, the
// utilisation and for how long: "GPU 3 on host h1 has held 38.4 GiB at 0 % for 45 minutes".
import type { AlertText } from './index.ts';

export interface IdleGpu {
  index: number | null;
  host: string | null;
  gpuUuid: string;
  cluster: string;
  model: string | null;
  /** The stretch's first minute. */
  since: Date;
  minutes: number;
  heldMiB: number;
  peakUtilizationPct: number;
}

/** One alert per GPU and idle-held stretch: the store keeps this key unique per team. */
export const gpuIdleDedupeKey = (gpuId: string, since: Date) => `gpu-idle:${gpuId}:${since.toISOString()}`;

/** Memory as alerts and tips name it: '300 MiB', '38.4 GiB'. */
export const gpuMemoryText = (mib: number) => (mib < 1024 ? `${Math.round(mib)} MiB` : `${(mib / 1024).toFixed(1)} GiB`);

/**
 * @example gpuIdleAlertText({ index: 3, host: 'h1', heldMiB: 39278, peakUtilizationPct: 0, minutes: 45, … })
 *   // { subject: 'GPU 3 on host h1 has held 38.4 GiB at 0 % for 45 minutes', text: 'Idle GPU: GPU 3 on host h1 … since 14:05 UTC …' }
 */
export function gpuIdleAlertText(gpu: IdleGpu): AlertText {
  const name = `GPU ${gpu.index ?? gpu.gpuUuid} on host ${gpu.host ?? 'unknown'}`;
  const held = `has held ${gpuMemoryText(gpu.heldMiB)} at ${Math.round(gpu.peakUtilizationPct)} % for ${gpu.minutes} minute${gpu.minutes === 1 ? '' : 's'}`;
  const since = `${gpu.since.toISOString().slice(0, 10)} ${gpu.since.toISOString().slice(11, 16)} UTC`;
  return {
    subject: `${name} ${held}`,
    text:
      `Idle GPU: ${name} (${gpu.model ?? 'unknown model'}, cluster ${gpu.cluster}) ${held}, since ${since}. ` +
      'A process is holding its memory without using it: stop it to free the GPU, or see its cost on the GPU screen.',
  };
}
