/**
 * Idle resource detection: each slot (a minute by default) of one GPU is
 * - `active`: working, or pausing for less than the idle window (a gap between jobs);
 * - `idle-held`: part of a stretch below the utilisation threshold lasting at least the
 *   idle window, with memory still allocated — the waste a held model or a forgotten
 *   notebook kernel causes, and the one a scheduler cannot see;
 * - `idle`: the same stretch with nothing allocated;
 * - `unreported`: no sample in the slot (a gap also ends a stretch: idleness is never
 *   assumed across missing data).
 * A stretch counts as idle from its first slot once it reaches the window (defaults:
 * below 5 % for 30 minutes), because the waste began then, not 30 minutes later. A slot's
 * utilisation is its samples' peak, so one busy burst keeps the slot active.
 * GPU time is priced per hour in GBP micros; waste is exact integer arithmetic.
 */
import type { GpuSample } from './telemetry.ts';

export type GpuSlotState = 'active' | 'idle-held' | 'idle' | 'unreported';

export interface IdleRules {
  /** A slot whose peak utilisation is below this (percent) is idle-looking. */
  idleBelowPct: number;
  /** How long a GPU must stay below the threshold before its stretch counts as idle. */
  idleAfterMinutes: number;
  /** Memory used at or above this (MiB) counts as held; below it as nothing allocated (the driver's own few MiB). */
  heldMemoryMiB: number;
}

export const DEFAULT_IDLE_RULES: IdleRules = { idleBelowPct: 5, idleAfterMinutes: 30, heldMemoryMiB: 256 };

export interface GpuSlot {
  /** Epoch ms of the slot's start. */
  start: number;
  state: GpuSlotState;
  samples: number;
  /** Peak utilisation in the slot; null when none was reported. */
  peakUtilizationPct: number | null;
  /** Most memory used in the slot (MiB). */
  peakMemoryMiB: number | null;
}

/**
 * The slots of one GPU over [from, to), from its samples (any order; samples outside the
 * range are ignored). `slotMs` divides the range; a slot holds samples with start ≤ at < end.
 */
export function classifyGpuSlots(samples: readonly GpuSample[], range: { from: number; to: number; slotMs?: number }, rules: IdleRules = DEFAULT_IDLE_RULES): GpuSlot[] {
  const slotMs = range.slotMs ?? 60_000;
  const count = Math.max(0, Math.ceil((range.to - range.from) / slotMs));
  const slots: GpuSlot[] = Array.from({ length: count }, (_, i) => ({ start: range.from + i * slotMs, state: 'unreported', samples: 0, peakUtilizationPct: null, peakMemoryMiB: null }));
  for (const sample of samples) {
    if (sample.at < range.from || sample.at >= range.to) continue;
    const slot = slots[Math.floor((sample.at - range.from) / slotMs)]!;
    slot.samples++;
    if (sample.utilizationPct !== null) slot.peakUtilizationPct = Math.max(slot.peakUtilizationPct ?? 0, sample.utilizationPct);
    if (sample.memoryUsedMiB !== null) slot.peakMemoryMiB = Math.max(slot.peakMemoryMiB ?? 0, sample.memoryUsedMiB);
  }
  const quiet = (slot: GpuSlot) => slot.samples > 0 && slot.peakUtilizationPct !== null && slot.peakUtilizationPct < rules.idleBelowPct;
  const windowSlots = Math.max(1, Math.ceil((rules.idleAfterMinutes * 60_000) / slotMs));
  let i = 0;
  while (i < slots.length) {
    if (slots[i]!.samples === 0) {
      i++;
      continue;
    }
    if (!quiet(slots[i]!)) {
      slots[i]!.state = 'active';
      i++;
      continue;
    }
    let end = i;
    while (end < slots.length && quiet(slots[end]!)) end++;
    const idle = end - i >= windowSlots;
    for (let j = i; j < end; j++) {
      const slot = slots[j]!;
      slot.state = !idle ? 'active' : (slot.peakMemoryMiB ?? 0) >= rules.heldMemoryMiB ? 'idle-held' : 'idle';
    }
    i = end;
  }
  return slots;
}

/** How many slots of each state. */
export function countGpuSlots(slots: readonly GpuSlot[]): Record<GpuSlotState, number> {
  const counts: Record<GpuSlotState, number> = { active: 0, 'idle-held': 0, idle: 0, unreported: 0 };
  for (const slot of slots) counts[slot.state]++;
  return counts;
}

/** The price of `slots` slots of `slotMs` at `pricePerHourMicros`, rounded half up to the micro. */
export function gpuTimeCostMicros(slots: number, slotMs: number, pricePerHourMicros: bigint): bigint {
  const numerator = BigInt(slots) * BigInt(slotMs) * pricePerHourMicros;
  return (numerator + 1_800_000n) / 3_600_000n;
}
