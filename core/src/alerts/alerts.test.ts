import { describe, expect, it } from 'vitest';
import { type BudgetSpend, gpuIdleAlertText, gpuIdleDedupeKey, isE164, slackMessage, smsBody, teamsMessage, thresholdAlertText, thresholdDedupeKey, thresholdsReached } from './index.ts';

const budget: BudgetSpend = {
  budgetId: 'b1',
  scope: 'group',
  scopeName: 'Research',
  window: 'month',
  windowLabel: '2026-11-01',
  amountMicros: 2_000_000_000n,
  spentMicros: 1_640_000_000n,
  alertAt: [100, 50, 80, 80],
};

describe('spend alert rules', () => {
  it('reaches a threshold at exactly its share of the amount, in micro-units, each once', () => {
    expect(thresholdsReached(budget)).toEqual([50, 80]);
    expect(thresholdsReached({ ...budget, spentMicros: 999_999_999n })).toEqual([]);
    expect(thresholdsReached({ ...budget, spentMicros: 1_000_000_000n })).toEqual([50]);
    expect(thresholdsReached({ ...budget, spentMicros: 2_000_000_000n })).toEqual([50, 80, 100]);
    // Beyond 2^53 micros the comparison stays exact.
    expect(thresholdsReached({ amountMicros: 2n ** 60n, spentMicros: 2n ** 59n - 1n, alertAt: [50] })).toEqual([]);
    expect(thresholdsReached({ amountMicros: 2n ** 60n, spentMicros: 2n ** 59n, alertAt: [50] })).toEqual([50]);
  });

  it('keys an alert by budget, window and threshold, so a new window re-arms it', () => {
    expect(thresholdDedupeKey('b1', '2026-11-01', 80)).toBe('threshold:b1:2026-11-01:80');
    expect(thresholdDedupeKey('b1', '2026-12-01', 80)).not.toBe(thresholdDedupeKey('b1', '2026-11-01', 80));
  });

  it('says what was spent of what, in pounds', () => {
    expect(thresholdAlertText(budget, 80)).toEqual({
      subject: 'Research has spent 82% of its £2000.00 monthly budget',
      text: 'Budget alert: the group Research has spent £1640.00 of its £2000.00 monthly (window from 2026-11-01) budget (82%), reaching the 80% alert.',
    });
    expect(thresholdAlertText({ ...budget, window: 'total', windowLabel: 'total', scope: 'team', scopeName: 'Acme' }, 50).text).toBe(
      'Budget alert: the team Acme has spent £1640.00 of its £2000.00 total budget (82%), reaching the 50% alert.',
    );
  });

  it('builds each channel wire format', () => {
    const text = { subject: 'S'.repeat(200), text: 'Body' };
    const slack = slackMessage(text);
    expect(slack.blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'S'.repeat(150), emoji: false } });
    expect(slack.text).toBe(`${'S'.repeat(200)}: Body`);
    const teams = teamsMessage({ subject: 'Subject', text: 'Body' });
    expect(teams.type).toBe('message');
    expect(teams.attachments[0]!.contentType).toBe('application/vnd.microsoft.card.adaptive');
    expect(teams.attachments[0]!.content.body.map((element) => element.text)).toEqual(['Subject', 'Body']);
    expect(smsBody({ subject: 's', text: 'x'.repeat(400) })).toHaveLength(320);
    expect(smsBody({ subject: 's', text: 'short' })).toBe('Spendgate: short');
  });

  it('knows an E.164 number', () => {
    expect(isE164('+447700900123')).toBe(true);
    expect(['07700900123', '+0447700900123', '+44 7700 900123', '+1234567'].map(isE164)).toEqual([false, false, false, false]);
  });
});

describe('idle-GPU alerts', () => {
  const gpu = { index: 3, host: 'h1', gpuUuid: 'GPU-16f6ff9f-3a6d-8e36-d344-b90f0080f305', cluster: 'training', model: 'NVIDIA H200', since: new Date('2026-11-26T14:05:00Z'), minutes: 45, heldMiB: 39278, peakUtilizationPct: 0 };

  it('names the GPU, its host, the memory held, the utilisation and for how long', () => {
    expect(gpuIdleAlertText(gpu)).toEqual({
      subject: 'GPU 3 on host h1 has held 38.4 GiB at 0 % for 45 minutes',
      text: 'Idle GPU: GPU 3 on host h1 (NVIDIA H200, cluster training) has held 38.4 GiB at 0 % for 45 minutes, since 2026-11-26 14:05 UTC. A process is holding its memory without using it: stop it to free the GPU, or see its cost on the GPU screen.',
    });
    expect(gpuIdleAlertText({ ...gpu, index: null, host: null, heldMiB: 300, peakUtilizationPct: 3.6, minutes: 1 }).subject).toBe(`GPU ${gpu.gpuUuid} on host unknown has held 300 MiB at 4 % for 1 minute`);
  });

  it('fires once per GPU and stretch', () => {
    expect(gpuIdleDedupeKey('g1', gpu.since)).toBe('gpu-idle:g1:2026-11-26T14:05:00.000Z');
  });
});
