import { describe, expect, it } from 'vitest';
import { azureTrace, demoDay, parseTrace, requestsOnDay, seededRandom } from './workload.ts';

describe('the demo workload', () => {
  it('reads every request of the Azure trace with its second in the hour and its token counts', () => {
    const trace = azureTrace();
    expect(trace).toHaveLength(19_366);
    expect(trace[0]).toEqual({ offsetMs: (15 * 60 + 46) * 1_000 + 680, promptTokens: 374, outputTokens: 44 });
    expect(trace.at(-1)).toMatchObject({ promptTokens: 197, outputTokens: 183 });
    expect(trace.every((request) => request.offsetMs >= 0 && request.offsetMs < 3_600_000)).toBe(true);
    expect(parseTrace('TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:59:59.9990000,10,2\n2023-11-16 19:00:00.5000000,20,4\n')).toEqual([
      { offsetMs: 3_599_999, promptTokens: 10, outputTokens: 2 },
      { offsetMs: 500, promptTokens: 20, outputTokens: 4 },
    ]);
  });

  it('has quieter weekends and grows over the days', () => {
    const monday = new Date('2026-11-23T00:00:00Z');
    const sunday = new Date('2026-11-22T00:00:00Z');
    expect(requestsOnDay(0, 90, monday)).toBe(500);
    expect(requestsOnDay(89, 90, monday)).toBe(950);
    expect(requestsOnDay(0, 90, sunday)).toBe(125);
  });

  it('gives a day the trace’s next requests, in time order, within that day, the same for the same seed', () => {
    const trace = azureTrace();
    const dayStart = new Date('2026-11-23T00:00:00Z');
    const first = demoDay(trace, trace.length - 2, dayStart, 5, seededRandom(7));
    expect(first.cursor).toBe(3);
    const times = first.requests.map((request) => request.occurredAt.getTime());
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(times.every((at) => at >= dayStart.getTime() && at < dayStart.getTime() + 86_400_000)).toBe(true);
    const used = [trace.at(-2), trace.at(-1), trace[0], trace[1], trace[2]].map((request) => `${request!.promptTokens}/${request!.outputTokens}`).sort();
    expect(first.requests.map((request) => `${request.promptTokens}/${request.outputTokens}`).sort()).toEqual(used);
    expect(demoDay(trace, trace.length - 2, dayStart, 5, seededRandom(7))).toEqual(first);
  });
});
