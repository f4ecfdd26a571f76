// GPU telemetry read from a real H200 capture (nvidia-smi) and from a DCGM exporter scrape,
// and each slot of the capture classified active, idle-held or idle as its phases were.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { classifyGpuSlots, classifySlots, countGpuSlots, gpuTimeCostMicros, heldStretchAtEnd, readGpuSlots, reclassificationSpan } from './idle.ts';
import { parseDcgmMetrics, parseNvidiaSmiComputeApps, parseNvidiaSmiGpus } from './telemetry.ts';

const capture = (file: string) => readFileSync(new URL(`./h200-capture/${file}`, import.meta.url), 'utf8');
const UUID = 'GPU-16f6ff9f-3a6d-8e36-d344-b90f0080f305';
const at = (time: string) => Date.parse(`2026-11-26T${time}Z`);

describe('nvidia-smi batches', () => {
  it('reads every row of the capture by its header, units and all', () => {
    const { samples, problems } = parseNvidiaSmiGpus(capture('gpu-samples.csv'), 'gpu-node-1');
    expect(problems).toEqual([]);
    expect(samples).toHaveLength(268);
    expect(samples[0]).toEqual({
      at: at('02:35:01.361'),
      gpuUuid: UUID,
      index: 0,
      model: 'NVIDIA H200',
      host: 'gpu-node-1',
      utilizationPct: 0,
      memoryUsedMiB: 0,
      memoryTotalMiB: 143771,
      powerW: 81.86,
    });
    const busy = samples.find((sample) => sample.at === at('02:35:27.972'))!;
    expect(busy).toMatchObject({ utilizationPct: 100, memoryUsedMiB: 39287 });
  });

  it('reads the compute apps without a header, and with one', () => {
    const headless = parseNvidiaSmiComputeApps(capture('compute-apps.csv'));
    expect(headless.problems).toEqual([]);
    expect(headless.samples).toHaveLength(26);
    expect(headless.samples[0]).toEqual({ at: at('02:35:27.949'), gpuUuid: UUID, pid: 607, processName: 'python3', usedMemoryMiB: 39278 });
    const headed = parseNvidiaSmiComputeApps(`timestamp, gpu_uuid, pid, process_name, used_memory [MiB]\n2026/11/26 02:35:28.972, ${UUID}, 607, python3, 39278 MiB\n`);
    expect(headed).toEqual({ samples: [{ at: at('02:35:28.972'), gpuUuid: UUID, pid: 607, processName: 'python3', usedMemoryMiB: 39278 }], problems: [] });
  });

  it('names each line it cannot read and keeps the rest', () => {
    const header = 'timestamp, index, uuid, utilization.gpu [%], memory.used [MiB]';
    const { samples, problems } = parseNvidiaSmiGpus(
      [header, `2026/11/26 02:35:01.361, 0, ${UUID}, 0 %, 0 MiB`, `yesterday, 0, ${UUID}, 0 %, 0 MiB`, `2026/11/26 02:35:01.600, 0, not-a-gpu, 0 %, 0 MiB`, '2026/11/26 02:35:01.700, 0'].join('\n'),
    );
    expect(samples).toHaveLength(1);
    expect(problems).toEqual(['line 3: timestamp: not a time', 'line 4: uuid: not a GPU UUID', 'line 5: 2 fields, the header has 5']);
    expect(parseNvidiaSmiGpus('index, name\n0, H200').problems).toEqual(['line 1: the header must name timestamp and uuid']);
    expect(parseNvidiaSmiGpus(`timestamp, uuid, utilization.gpu [%]\n2026/11/26 02:35:01.361, ${UUID}, [N/A]`).samples[0]!.utilizationPct).toBeNull();
    // Readings no device gives, and bytes no telemetry holds, are named too.
    const wrong = parseNvidiaSmiGpus(`${header}\n2026/11/26 02:35:01.361, 0, ${UUID}, 140 %, 0 MiB\n2026/11/26 02:35:01.361, 0, ${UUID}, 1 %, 99999999999 MiB\n2026/11/26 02:35:01.361, 5000, ${UUID}, 1 %, 0 MiB\n2026/11/26 02:35:01.361, 0, ${UUID}\u0000, 1 %, 0 MiB`);
    expect(wrong.problems).toEqual(['line 2: utilization.gpu: out of range', 'line 3: memory.used: out of range', 'line 4: index: out of range', 'line 5: a control character']);
    expect(parseNvidiaSmiComputeApps(`2026/11/26 02:35:28.972, ${UUID}, 99999999999, python3, 39278 MiB`).problems).toEqual(['line 1: pid: out of range']);
  });
});

describe('DCGM exporter scrapes', () => {
  // The exporter's exposition for two GPUs of one host, as dcgm-exporter writes it.
  const scrape = [
    '# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).',
    '# TYPE DCGM_FI_DEV_GPU_UTIL gauge',
    `DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="${UUID}",pci_bus_id="00000000:00:06.0",device="nvidia0",modelName="NVIDIA H200",Hostname="gpu-node-1"} 0`,
    'DCGM_FI_DEV_GPU_UTIL{gpu="1",UUID="GPU-0a1b2c3d-0000-1111-2222-333344445555",device="nvidia1",modelName="NVIDIA H200",Hostname="gpu-node-1"} 97',
    '# HELP DCGM_FI_DEV_FB_USED Framebuffer memory used (in MiB).',
    `DCGM_FI_DEV_FB_USED{gpu="0",UUID="${UUID}",modelName="NVIDIA H200",Hostname="gpu-node-1"} 39287`,
    `DCGM_FI_DEV_FB_FREE{gpu="0",UUID="${UUID}",modelName="NVIDIA H200",Hostname="gpu-node-1"} 104484`,
    `DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="${UUID}",modelName="NVIDIA H200",Hostname="gpu-node-1"} 125.4`,
    `DCGM_FI_DEV_SM_CLOCK{gpu="0",UUID="${UUID}",modelName="NVIDIA H200",Hostname="gpu-node-1"} 1980`,
    'DCGM_FI_DEV_GPU_TEMP{gpu="0"} 36',
  ].join('\n');

  it('gives one sample per GPU with memory total as used plus free', () => {
    const { samples, problems } = parseDcgmMetrics(scrape, at('02:40:00'));
    expect(problems).toEqual([]);
    expect(samples).toEqual([
      { at: at('02:40:00'), gpuUuid: UUID, index: 0, model: 'NVIDIA H200', host: 'gpu-node-1', utilizationPct: 0, memoryUsedMiB: 39287, memoryTotalMiB: 143771, powerW: 125.4 },
      {
        at: at('02:40:00'),
        gpuUuid: 'GPU-0a1b2c3d-0000-1111-2222-333344445555',
        index: 1,
        model: 'NVIDIA H200',
        host: 'gpu-node-1',
        utilizationPct: 97,
        memoryUsedMiB: null,
        memoryTotalMiB: null,
        powerW: null,
      },
    ]);
  });

  it('names a line without a UUID or a number, and one that is not Prometheus text', () => {
    const { problems } = parseDcgmMetrics(`DCGM_FI_DEV_GPU_UTIL{gpu="0"} 5\nDCGM_FI_DEV_GPU_UTIL{UUID="GPU-x"} many\n{broken\nDCGM_FI_DEV_GPU_UTIL{UUID="GPU-x"} 5\nDCGM_FI_DEV_GPU_UTIL{UUID="${UUID}"} 500`, 0);
    expect(problems).toEqual(['line 1: UUID label missing', 'line 2: value: not a number', 'line 3: not a Prometheus sample', 'line 4: UUID: not a GPU UUID', 'line 5: value: out of range']);
  });
});

describe('idle detection on the real capture', () => {
  // Two-second slots, idle after six seconds below 5 %: the capture's phases at a scale it covers.
  const rules = { idleBelowPct: 5, idleAfterMinutes: 0.1, heldMemoryMiB: 256 };
  const samples = parseNvidiaSmiGpus(capture('gpu-samples.csv')).samples;
  const slots = classifyGpuSlots(samples, { from: at('02:35:00'), to: at('02:36:12'), slotMs: 2_000 }, rules);
  const stateAt = (time: string) => slots.find((slot) => slot.start === at(time))!.state;

  it('finds each phase: idle, busy, memory held while idle, the exit, idle again', () => {
    expect(stateAt('02:35:00')).toBe('idle');
    expect(stateAt('02:35:24')).toBe('idle');
    expect(stateAt('02:35:26')).toBe('active'); // 4 % then 100 % as the loop starts
    expect(stateAt('02:35:42')).toBe('active'); // the loop's last busy samples
    for (const time of ['02:35:44', '02:35:46', '02:35:48', '02:35:50', '02:35:52']) expect(stateAt(time)).toBe('idle-held');
    expect(stateAt('02:35:54')).toBe('active'); // 13 % as the process exits
    expect(stateAt('02:35:56')).toBe('idle');
    expect(stateAt('02:36:10')).toBe('unreported'); // after the capture ends
    // 36 slots: 13 idle before the loop (:00–:24), 9 busy (:26–:42), 5 held (:44–:52), the exit (:54),
    // 7 idle to the last sample (:56–:68), and :70 with no sample
    expect(countGpuSlots(slots)).toEqual({ active: 10, 'idle-held': 5, idle: 20, unreported: 1 });
  });

  it('keeps a pause shorter than the window active, and never bridges a gap in the data', () => {
    const quiet = (time: string, memoryUsedMiB = 0) => ({ ...samples[0]!, at: at(time), utilizationPct: 0, memoryUsedMiB });
    const minutes = (from: string, n: number) => ({ from: at(from), to: at(from) + n * 60_000 });
    const pause = classifyGpuSlots([quiet('03:00:10'), quiet('03:01:10'), { ...quiet('03:02:10'), utilizationPct: 80 }], minutes('03:00:00', 3), { ...rules, idleAfterMinutes: 3 });
    expect(pause.map((slot) => slot.state)).toEqual(['active', 'active', 'active']);
    const gap = classifyGpuSlots([quiet('03:00:10', 4000), quiet('03:02:10', 4000)], minutes('03:00:00', 3), { ...rules, idleAfterMinutes: 2 });
    expect(gap.map((slot) => slot.state)).toEqual(['active', 'unreported', 'active']);
    const held = classifyGpuSlots([quiet('03:00:10', 4000), quiet('03:01:10', 4000)], minutes('03:00:00', 2), { ...rules, idleAfterMinutes: 2 });
    expect(held.map((slot) => slot.state)).toEqual(['idle-held', 'idle-held']);
  });

  it('reads each slot: samples, peaks and means', () => {
    const readings = readGpuSlots(samples, { from: at('02:35:00'), to: at('02:36:12'), slotMs: 2_000 });
    expect(readings).toHaveLength(35); // every slot but :70, after the capture ends
    expect(readings[0]).toEqual({ start: at('02:35:00'), samples: 3, peakUtilizationPct: 0, meanUtilizationPct: 0, peakMemoryMiB: 0, meanPowerW: expect.closeTo(81.86, 6) }); // three samples at 81.86 W
    expect(classifySlots(readings, { from: at('02:35:00'), to: at('02:36:12'), slotMs: 2_000 }, rules)).toEqual(slots);
  });

  it('classifies the capture the same when it arrives in batches, recomputing only from the span', () => {
    // Readings kept per slot as a store would; each batch recomputes from its span's readFrom and keeps states from writeFrom.
    const range = { from: at('02:35:00'), to: at('02:36:12'), slotMs: 2_000 };
    const stored = new Map<number, (typeof slots)[number]>();
    for (let first = 0; first < samples.length; first += 37) {
      const batch = samples.slice(first, first + 37);
      for (const reading of readGpuSlots(samples.slice(0, first + 37), range)) {
        if (reading.start >= Math.floor((batch[0]!.at - range.from) / 2_000) * 2_000 + range.from) stored.set(reading.start, { ...reading, state: 'unreported' });
      }
      const span = reclassificationSpan(batch[0]!.at, rules, 2_000);
      const to = Math.max(...stored.keys()) + 2_000;
      const from = Math.max(range.from, span.readFrom);
      for (const slot of classifySlots([...stored.values()], { from, to, slotMs: 2_000 }, rules)) {
        if (slot.start >= span.writeFrom && slot.samples > 0) stored.set(slot.start, slot);
      }
    }
    expect([...stored.values()].sort((a, b) => a.start - b.start)).toEqual(slots.filter((slot) => slot.samples > 0));
  });

  it('finds the memory held while idle that the newest slot ends, and none once the GPU moves on', () => {
    const upTo = (time: string) => slots.filter((slot) => slot.start <= at(time));
    // Through :50 the process has held 39 GB at 0 % since :44: four slots of two seconds.
    expect(heldStretchAtEnd(upTo('02:35:50'), 2_000)).toEqual({ start: at('02:35:44'), end: at('02:35:52'), slots: 4, peakMemoryMiB: 39287, peakUtilizationPct: 0 });
    expect(heldStretchAtEnd(upTo('02:35:54'), 2_000)).toBeNull(); // the exit's 13 %
    expect(heldStretchAtEnd(upTo('02:35:40'), 2_000)).toBeNull(); // busy
    expect(heldStretchAtEnd(upTo('02:35:50').filter((slot) => slot.start !== at('02:35:48')), 2_000)).toMatchObject({ start: at('02:35:50'), slots: 1 }); // a gap ends a run
  });

  it('prices idle time exactly, to the micro', () => {
    // 5 held slots of 2 s = 10 s of an H200 at £3.50 an hour: 3.5 × 10 / 3600 = £0.009722…
    expect(gpuTimeCostMicros(5, 2_000, 3_500_000n)).toBe(9_722n);
    // 30 minutes at £3.50 an hour is £1.75 exactly
    expect(gpuTimeCostMicros(30, 60_000, 3_500_000n)).toBe(1_750_000n);
    expect(gpuTimeCostMicros(0, 60_000, 3_500_000n)).toBe(0n);
  });
});
