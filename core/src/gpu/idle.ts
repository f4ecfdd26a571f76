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

/** What one slot of one GPU read: its samples' count, utilisation (peak and mean), peak memory and mean power. */
export interface GpuSlotReading {
  /** Epoch ms of the slot's start. */
  start: number;
  samples: number;
  /** Peak utilisation in the slot (what idleness is judged on); null when none was reported. */
  peakUtilizationPct: number | null;
  /** Mean utilisation of the samples that reported it (what fleet utilisation averages). */
  meanUtilizationPct: number | null;
  /** Most memory used in the slot (MiB). */
  peakMemoryMiB: number | null;
  /** Mean power draw of the samples that reported it (W). */
  meanPowerW: number | null;
}

export interface GpuSlot extends GpuSlotReading {
  state: GpuSlotState;
}

export interface SlotRange {
  from: number;
  to: number;
  /** The slot length; a minute unless said. */
  slotMs?: number;
}

/**
 * The readings of one GPU's slots over [from, to) that have samples, in order, from its
 * samples (any order; samples outside the range are ignored). A slot holds samples with
 * start ≤ at < end.
 */
export function readGpuSlots(samples: readonly GpuSample[], range: SlotRange): GpuSlotReading[] {
  const slotMs = range.slotMs ?? 60_000;
  const slots = new Map<number, GpuSlotReading & { utilizationSum: number; utilizationSamples: number; powerSum: number; powerSamples: number }>();
  for (const sample of samples) {
    if (sample.at < range.from || sample.at >= range.to) continue;
    const start = range.from + Math.floor((sample.at - range.from) / slotMs) * slotMs;
    let slot = slots.get(start);
    if (!slot) {
      slot = { start, samples: 0, peakUtilizationPct: null, meanUtilizationPct: null, peakMemoryMiB: null, meanPowerW: null, utilizationSum: 0, utilizationSamples: 0, powerSum: 0, powerSamples: 0 };
      slots.set(start, slot);
    }
    slot.samples++;
    if (sample.utilizationPct !== null) {
      slot.peakUtilizationPct = Math.max(slot.peakUtilizationPct ?? 0, sample.utilizationPct);
      slot.utilizationSum += sample.utilizationPct;
      slot.utilizationSamples++;
    }
    if (sample.memoryUsedMiB !== null) slot.peakMemoryMiB = Math.max(slot.peakMemoryMiB ?? 0, sample.memoryUsedMiB);
    if (sample.powerW !== null) {
      slot.powerSum += sample.powerW;
      slot.powerSamples++;
    }
  }
  return [...slots.values()]
    .sort((a, b) => a.start - b.start)
    .map(({ utilizationSum, utilizationSamples, powerSum, powerSamples, ...slot }) => ({
      ...slot,
      meanUtilizationPct: utilizationSamples === 0 ? null : utilizationSum / utilizationSamples,
      meanPowerW: powerSamples === 0 ? null : powerSum / powerSamples,
    }));
}

/**
 * Every slot of one GPU over [from, to), classified from its readings (a slot without one
 * is unreported). Readings outside the range are ignored.
 */
export function classifySlots(readings: readonly GpuSlotReading[], range: SlotRange, rules: IdleRules = DEFAULT_IDLE_RULES): GpuSlot[] {
  const slotMs = range.slotMs ?? 60_000;
  const count = Math.max(0, Math.ceil((range.to - range.from) / slotMs));
  const slots: GpuSlot[] = Array.from({ length: count }, (_, i) => ({
    start: range.from + i * slotMs,
    state: 'unreported',
    samples: 0,
    peakUtilizationPct: null,
    meanUtilizationPct: null,
    peakMemoryMiB: null,
    meanPowerW: null,
  }));
  for (const reading of readings) {
    if (reading.start < range.from || reading.start >= range.to || reading.samples === 0) continue;
    const slot = slots[Math.floor((reading.start - range.from) / slotMs)]!;
    Object.assign(slot, { ...reading, start: slot.start });
  }
  const quiet = (slot: GpuSlot) => slot.samples > 0 && slot.peakUtilizationPct !== null && slot.peakUtilizationPct < rules.idleBelowPct;
  const windowSlots = idleWindowSlots(rules, slotMs);
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

/** How many slots a stretch must last to count as idle. */
export function idleWindowSlots(rules: IdleRules, slotMs = 60_000): number {
  return Math.max(1, Math.ceil((rules.idleAfterMinutes * 60_000) / slotMs));
}

/** The slots of one GPU over [from, to), from its samples, classified. */
export function classifyGpuSlots(samples: readonly GpuSample[], range: SlotRange, rules: IdleRules = DEFAULT_IDLE_RULES): GpuSlot[] {
  return classifySlots(readGpuSlots(samples, range), range, rules);
}

/**
 * What to recompute when a GPU's readings from `changedFrom` on are new or changed (a
 * batch arrived, late samples filled a gap): classify from `readFrom` and keep the states
 * from `writeFrom` on. Only a stretch reaching into the change can change, and one that
 * did not already count as idle began less than a window before it; a stretch reaching
 * `writeFrom` from before `readFrom` is at least a window long in the slots read, so it
 * comes out idle, as it is. So a stretch that spans several batches turns its earlier
 * slots idle once it reaches the window, and states before `writeFrom` never need a look.
 */
export function reclassificationSpan(changedFrom: number, rules: IdleRules, slotMs = 60_000): { readFrom: number; writeFrom: number } {
  const start = changedFrom - (((changedFrom % slotMs) + slotMs) % slotMs);
  const window = idleWindowSlots(rules, slotMs) * slotMs;
  return { readFrom: start - 2 * window, writeFrom: start - window };
}

/** A GPU holding memory while idle, as its newest slots show it: since when, for how many slots, how much it holds, how busy it was. */
export interface HeldStretch {
  start: number;
  end: number;
  slots: number;
  peakMemoryMiB: number;
  peakUtilizationPct: number;
}

/**
 * The idle-held run of slots a GPU's newest slot ends (slots in order; a missing slot ends a
 * run), or null when its newest slot is not idle-held: what an idle-GPU alert names.
 */
export function heldStretchAtEnd(slots: readonly Pick<GpuSlot, 'start' | 'state' | 'peakMemoryMiB' | 'peakUtilizationPct'>[], slotMs = 60_000): HeldStretch | null {
  const last = slots.at(-1);
  if (last?.state !== 'idle-held') return null;
  const stretch: HeldStretch = { start: last.start, end: last.start + slotMs, slots: 0, peakMemoryMiB: 0, peakUtilizationPct: 0 };
  for (let i = slots.length - 1; i >= 0; i--) {
    const slot = slots[i]!;
    if (slot.state !== 'idle-held' || slot.start !== stretch.start - (stretch.slots === 0 ? 0 : slotMs)) break;
    stretch.start = slot.start;
    stretch.slots++;
    stretch.peakMemoryMiB = Math.max(stretch.peakMemoryMiB, slot.peakMemoryMiB ?? 0);
    stretch.peakUtilizationPct = Math.max(stretch.peakUtilizationPct, slot.peakUtilizationPct ?? 0);
  }
  return stretch;
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
