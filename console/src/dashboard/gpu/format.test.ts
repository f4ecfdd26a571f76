// The GPU screen's figures in words: ranges ending after the current hour, durations,
// memory, £ to the penny or beyond and unpriced, and GPU names.
import { describe, expect, it } from 'vitest';
import { gbpText, gpuName, hourLabel, memoryText, minutesText, rangeOf } from './format.ts';

describe('GPU figures', () => {
  it('ends a range at the next whole UTC hour, so the current one is in it', () => {
    const range = rangeOf('day', Date.parse('2026-11-26T14:05:30Z'));
    expect([range.from, range.to]).toEqual(['2026-11-25T15:00:00.000Z', '2026-11-26T15:00:00.000Z']);
    expect(range.hours).toHaveLength(24);
    expect(range.hours.at(-1)).toBe('2026-11-26T14:00:00.000Z');
    expect(hourLabel(range.hours[0]!, false)).toBe('15:00');
    expect(hourLabel(range.hours[0]!, true)).toBe('11-25 15:00');
  });

  it('writes minutes, memory, £ and GPUs as a person reads them', () => {
    expect([minutesText(45), minutesText(60), minutesText(125)]).toEqual(['45 min', '1 h', '2 h 5 min']);
    expect([memoryText(39287), memoryText(300), memoryText(null)]).toEqual(['38.4 GiB', '300 MiB', '—']);
    expect([gbpText('2.916667'), gbpText('1.500000'), gbpText(null)]).toEqual(['£2.916667', '£1.50', 'Unpriced']);
    expect(gpuName({ host: 'gpu-node-1', index: 3, gpuUuid: 'GPU-16f6ff9f-3a6d' })).toBe('gpu-node-1 · GPU 3');
    expect(gpuName({ host: null, index: null, gpuUuid: 'GPU-16f6ff9f-3a6d' })).toBe('GPU-16f6ff9f');
  });
});
