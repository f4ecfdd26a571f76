import { describe, expect, it } from 'vitest';
import { planTerms } from '../plans.ts';
import { priceCatalog } from '../pricing/catalog.ts';
import { plainUsage, type Usage } from '../usage.ts';
import {
  type AdvisorGpu,
  type AdvisorInput,
  detectCheaperModel,
  detectCheaperProvider,
  detectDuplicates,
  detectFindings,
  detectIdle,
  detectIdleGpus,
  detectOversizedOutputLimits,
  detectReasoningHeavy,
  type OutputLimitSlice,
  type RepeatSlice,
  type UsageSlice,
} from './detectors.ts';
import { acceptRewording, describeFinding, rewordingPrompt } from './wording.ts';

// Every expected amount below is worked by hand from the 2026-08-21 catalog's list prices
// (USD per 1M tokens) and the FX rate of £0.75 per $1.
const at = new Date('2026-11-20T00:00:00Z');
const daysBefore = (days: number) => new Date(at.getTime() - days * 86_400_000);

const slice = (overrides: Partial<UsageSlice> & { usage: Usage }): UsageSlice => ({
  keyId: 'key-1',
  keyName: 'backend',
  keyKind: 'byok',
  connectionId: 'conn-openai',
  provider: 'openai',
  model: 'gpt-4o',
  requestedModels: [overrides.model ?? 'gpt-4o'],
  requests: 200,
  largestOutputTokens: 600,
  exampleRequestIds: ['req-3', 'req-2', 'req-1'],
  ...overrides,
});

/** The live BYOK key the slices above belong to, bound to its OpenAI connection. */
const backend = { id: 'key-1', name: 'backend', kind: 'byok' as const, connectionId: 'conn-openai', createdAt: daysBefore(60), lastUsedAt: daysBefore(0) };

const input = (overrides: Partial<AdvisorInput>): AdvisorInput => ({
  plan: planTerms('growth'),
  catalog: priceCatalog,
  at,
  windowDays: 30,
  slices: [],
  repeats: [],
  outputLimits: [],
  keys: [],
  connections: [],
  operatorProviders: ['openai', 'anthropic'],
  ...overrides,
});

describe('cheaper model of the same quality tier', () => {
  it('finds gpt-5-mini for a BYOK key on gpt-4o, on the key’s own provider', () => {
    const findings = detectCheaperModel(input({ windowDays: 15, slices: [slice({ usage: plainUsage(1_000_000, 100_000) })] }));
    expect(findings).toHaveLength(1);
    const [finding] = findings;
    // gpt-4o: 1M × $2.50 + 0.1M × $10 = $3.50 → £2.625.
    // Tier 2, accuracy ≥ 80, on openai: gpt-5-mini $0.25 + $0.20 = $0.45 → £0.3375 (gpt-4.1 $2.80, o3-mini $1.54).
    expect(finding).toMatchObject({
      kind: 'cheaper-model',
      fingerprint: 'cheaper-model:key-1:openai:gpt-4o:gpt-5-mini',
      currentCostMicros: 2_625_000n,
      counterfactualCostMicros: 337_500n,
      // (£2.625 − £0.3375) over 15 days × 30 / 15 = £4.575 a month.
      monthlySavingMicros: 4_575_000n,
      confidence: 'medium',
      evidence: { requests: 200, exampleRequestIds: ['req-3', 'req-2', 'req-1'] },
      change: { action: 'manual', instruction: 'Request gpt-5-mini instead of gpt-4o on key backend' },
    });
    expect(describeFinding(finding!)).toEqual({
      title: 'Use gpt-5-mini instead of gpt-4o',
      text: '200 requests cost £2.625 on gpt-4o. gpt-5-mini is in the same quality tier (accuracy 84 vs 80) and would have cost £0.3375: about £4.575 a month.',
    });
  });

  it('overrides the models the live key’s callers asked for, in one click', () => {
    const usage = plainUsage(1_000_000, 100_000);
    // The provider named a dated snapshot; callers asked for the alias and the snapshot.
    const served = slice({ model: 'gpt-4o-2024-08-06', requestedModels: ['gpt-4o', 'gpt-4o-2024-08-06'], usage });
    const [finding] = detectCheaperModel(input({ slices: [served], keys: [backend] }));
    expect(finding!.change).toEqual({
      action: 'key-setting',
      keyId: 'key-1',
      settings: { modelOverrides: [{ replace: 'gpt-4o', with: 'gpt-5-mini' }, { replace: 'gpt-4o-2024-08-06', with: 'gpt-5-mini' }] },
      description: 'On key backend, send gpt-5-mini when gpt-4o or gpt-4o-2024-08-06 is asked for',
    });
    // Traffic an override already sends through another of the team's connections stays on it.
    const elsewhere = slice({ connectionId: 'conn-other', usage });
    expect(detectCheaperModel(input({ slices: [elsewhere], keys: [backend] }))[0]!.change).toMatchObject({
      settings: { modelOverrides: [{ replace: 'gpt-4o', with: 'gpt-5-mini', connectionId: 'conn-other' }] },
    });
  });

  it('stays manual for a key no longer live, or for what the router chose (`auto`)', () => {
    const usage = plainUsage(1_000_000, 100_000);
    expect(detectCheaperModel(input({ slices: [slice({ usage })] }))[0]!.change).toEqual({
      action: 'manual',
      instruction: 'Request gpt-5-mini instead of gpt-4o on key backend',
    });
    const routed = slice({ keyKind: 'optimised', connectionId: null, requestedModels: ['auto'], usage });
    expect(detectCheaperModel(input({ slices: [routed], keys: [{ ...backend, kind: 'optimised', connectionId: null }] }))[0]!.change.action).toBe('manual');
  });

  it('suggests optimised keys only models Spendgate’s accounts serve', () => {
    const optimised = slice({ keyKind: 'optimised', connectionId: null, usage: plainUsage(1_000_000, 100_000) });
    expect(detectCheaperModel(input({ slices: [optimised], operatorProviders: [] }))).toEqual([]);
  });

  it('prices an optimised key as billed: the plan’s uplift on both sides', () => {
    const [finding] = detectCheaperModel(input({ slices: [slice({ keyKind: 'optimised', connectionId: null, requests: 20, usage: plainUsage(1_000_000, 100_000) })] }));
    // Growth uplift 25 %: $3.50 × 0.75 × 1.25 = £3.28125 against $0.45 × 0.9375 = £0.421875.
    expect(finding).toMatchObject({ currentCostMicros: 3_281_250n, counterfactualCostMicros: 421_875n, monthlySavingMicros: 2_859_375n, confidence: 'low' });
  });

  it('finds nothing when no model of the tier is as accurate and cheaper, for BYOM keys, or for unpriced models', () => {
    const usage = plainUsage(1_000_000, 100_000);
    expect(
      detectCheaperModel(
        input({
          slices: [
            slice({ provider: 'anthropic', model: 'claude-sonnet-4-0', usage }), // accuracy 86: nothing in tier 2 matches it
            slice({ keyKind: 'byom', provider: 'openai-compatible', model: 'gpt-4o', usage }),
            slice({ model: 'my-own-model', usage }),
          ],
        }),
      ),
    ).toEqual([]);
  });
});

describe('reasoning tokens dominating cost', () => {
  it('counts reasoning at the output rate and halves it for the counterfactual', () => {
    const usage: Usage = { ...plainUsage(100_000, 1_000_000), reasoningTokens: 800_000 };
    const findings = detectReasoningHeavy(input({ windowDays: 10, slices: [slice({ model: 'o4-mini', usage })] }));
    // o4-mini: 0.1M × $1.10 + 1M × $4.40 = $4.51 → £3.3825; without reasoning $0.99 → £0.7425,
    // so reasoning is £2.64 of £3.3825 = 78 %. Half the reasoning: 0.1M × $1.10 + 0.6M × $4.40 = $2.75 → £2.0625.
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({
      kind: 'reasoning-heavy',
      currentCostMicros: 3_382_500n,
      counterfactualCostMicros: 2_062_500n,
      monthlySavingMicros: 3_960_000n, // £1.32 in 10 days × 3
      confidence: 'low',
      evidence: { facts: { reasoningSharePercent: 78, reasoningTokens: 800_000 } },
    });
  });

  it('leaves a slice alone when reasoning is under half its cost', () => {
    // 0.1M × $1.10 + 0.2M × $4.40 = $0.99, of which 0.1M reasoning × $4.40 = $0.44: 44 %.
    const usage: Usage = { ...plainUsage(100_000, 200_000), reasoningTokens: 100_000 };
    expect(detectReasoningHeavy(input({ slices: [slice({ model: 'o4-mini', usage })] }))).toEqual([]);
  });
});

describe('cheapest provider serving the same model', () => {
  const connections = [
    { id: 'conn-groq', name: 'Groq', provider: 'groq', createdAt: daysBefore(5), lastUsedAt: daysBefore(0) },
    { id: 'conn-together', name: 'Together', provider: 'together', createdAt: daysBefore(5), lastUsedAt: null },
    { id: 'conn-or', name: 'Router', provider: 'openrouter', createdAt: daysBefore(5), lastUsedAt: null },
  ];

  it('moves a BYOK key to the team’s cheapest connection that lists the model', () => {
    const gptOss = slice({ provider: 'groq', connectionId: 'conn-groq', model: 'openai/gpt-oss-120b', requests: 50, usage: plainUsage(1_000_000, 1_000_000) });
    const findings = detectCheaperProvider(input({ slices: [gptOss], connections }));
    // groq $0.15 + $0.60 = $0.75 → £0.5625; together the same; openrouter $0.03 + $0.17 = $0.20 → £0.15.
    expect(findings).toEqual([
      expect.objectContaining({
        kind: 'cheaper-provider',
        fingerprint: 'cheaper-provider:key-1:groq:openai/gpt-oss-120b:openrouter',
        currentCostMicros: 562_500n,
        counterfactualCostMicros: 150_000n,
        monthlySavingMicros: 412_500n,
        confidence: 'low',
        change: { action: 'manual', instruction: 'Serve openai/gpt-oss-120b for key backend through the openrouter connection "Router"' },
      }),
    ]);
  });

  it('sends the live key’s requests for the model through that connection, in one click', () => {
    const gptOss = slice({ provider: 'groq', connectionId: 'conn-groq', model: 'openai/gpt-oss-120b', requests: 50, usage: plainUsage(1_000_000, 1_000_000) });
    const [finding] = detectCheaperProvider(input({ slices: [gptOss], connections, keys: [{ ...backend, connectionId: 'conn-groq' }] }));
    expect(finding!.change).toEqual({
      action: 'key-setting',
      keyId: 'key-1',
      settings: { modelOverrides: [{ replace: 'openai/gpt-oss-120b', with: 'openai/gpt-oss-120b', connectionId: 'conn-or' }] },
      description: 'On key backend, send openai/gpt-oss-120b requests through the openrouter connection "Router"',
    });
    const asked = { ...gptOss, requestedModels: ['gpt-oss'] };
    expect(detectCheaperProvider(input({ slices: [asked], connections, keys: [backend] }))[0]!.change).toMatchObject({
      settings: { modelOverrides: [{ replace: 'gpt-oss', with: 'openai/gpt-oss-120b', connectionId: 'conn-or' }] },
      description: 'On key backend, send gpt-oss requests through the openrouter connection "Router" as openai/gpt-oss-120b',
    });
  });

  it('suggests no provider the team has no connection to, and leaves optimised keys to the router', () => {
    const gptOss = slice({ provider: 'groq', model: 'openai/gpt-oss-120b', usage: plainUsage(1_000_000, 1_000_000) });
    expect(detectCheaperProvider(input({ slices: [gptOss], connections: connections.slice(0, 2) }))).toEqual([]);
    expect(detectCheaperProvider(input({ slices: [{ ...gptOss, keyKind: 'optimised' }], connections }))).toEqual([]);
  });
});

describe('idle keys and connections', () => {
  it('finds keys and connections unused for 30 days; an idle optimised key over the allowance saves its fee', () => {
    const keys = [
      { id: 'k-busy', name: 'busy', kind: 'optimised' as const, connectionId: null, createdAt: daysBefore(90), lastUsedAt: daysBefore(1) },
      { id: 'k-never', name: 'never', kind: 'optimised' as const, connectionId: null, createdAt: daysBefore(40), lastUsedAt: null },
      { id: 'k-old', name: 'old', kind: 'optimised' as const, connectionId: null, createdAt: daysBefore(90), lastUsedAt: daysBefore(31) },
      { id: 'k-new', name: 'new', kind: 'byok' as const, connectionId: 'conn-openai', createdAt: daysBefore(10), lastUsedAt: null },
    ];
    const connections = [
      { id: 'c-idle', name: 'Old OpenAI', provider: 'openai', createdAt: daysBefore(60), lastUsedAt: daysBefore(45) },
      { id: 'c-busy', name: 'Anthropic', provider: 'anthropic', createdAt: daysBefore(60), lastUsedAt: daysBefore(2) },
    ];
    // Developers: 2 optimised keys included, then £5 a month each; 3 live, so one idle key's fee is saved.
    const findings = detectIdle(input({ plan: planTerms('developers'), keys, connections }));
    expect(findings.map((f) => [f.fingerprint, f.monthlySavingMicros, f.evidence.facts.idleDays, f.change])).toEqual([
      ['idle-key:k-never', 5_000_000n, 40, { action: 'revoke-key', keyId: 'k-never' }],
      ['idle-key:k-old', 0n, 31, { action: 'revoke-key', keyId: 'k-old' }],
      ['idle-connection:c-idle', 0n, 45, expect.objectContaining({ action: 'manual' })],
    ]);
    expect(findings.every((f) => f.confidence === 'high')).toBe(true);
    expect(describeFinding(findings[0]!).text).toBe("No request in 40 days. Revoking it ends its £5.00 monthly fee beyond your plan's included keys.");
  });

  it('saves no fee on a plan with unlimited optimised keys', () => {
    const keys = [1, 2, 3].map((n) => ({ id: `k${n}`, name: `k${n}`, kind: 'optimised' as const, connectionId: null, createdAt: daysBefore(40), lastUsedAt: null }));
    expect(detectIdle(input({ plan: planTerms('enterprise'), keys })).map((f) => f.monthlySavingMicros)).toEqual([0n, 0n, 0n]);
  });
});

describe('idle GPUs', () => {
  const gpu = (overrides: Partial<AdvisorGpu>): AdvisorGpu => ({
    gpuId: 'gpu-1',
    gpuUuid: 'GPU-16f6ff9f-3a6d-8e36-d344-b90f0080f305',
    index: 3,
    host: 'h1',
    cluster: 'training',
    model: 'NVIDIA H200',
    pricePerHourMicros: 3_500_000n,
    stretches: [
      { start: daysBefore(1), end: new Date(daysBefore(1).getTime() + 45 * 60_000), heldMinutes: 45, idleMinutes: 0, peakMemoryMiB: 39_278, peakUtilizationPct: 0.4, process: { pid: 607, name: 'python3' } },
    ],
    ...overrides,
  });

  it('prices a GPU holding memory while idle for the week and names the process to stop', () => {
    const [finding, ...others] = detectIdleGpus(input({ gpus: [gpu({})] }));
    expect(others).toHaveLength(0);
    // 45 minutes at £3.50 an hour = £2.625; × 30 / 7 days = £11.25 a month.
    expect(finding).toMatchObject({ kind: 'idle-gpu', fingerprint: 'idle-gpu:gpu-1', currentCostMicros: 2_625_000n, counterfactualCostMicros: 0n, monthlySavingMicros: 11_250_000n, confidence: 'high' });
    expect(describeFinding(finding!).title).toBe('GPU 3 on host h1 held 38.4 GiB at 0 % for 45 minutes, £2.625 wasted this week');
    expect(finding!.change).toEqual({ action: 'manual', instruction: "Stop python3 (pid 607) on host h1, or have it release GPU 3 on host h1's memory when it has no work; scale the GPU down while it is idle" });
  });

  it('asks to scale down a GPU idle with nothing allocated, and finds nothing for an unpriced model', () => {
    const idle = gpu({ stretches: [{ start: daysBefore(2), end: daysBefore(1), heldMinutes: 0, idleMinutes: 1_440, peakMemoryMiB: 0, peakUtilizationPct: 0, process: null }] });
    const [finding] = detectIdleGpus(input({ gpus: [idle] }));
    expect(describeFinding(finding!).title).toBe('GPU 3 on host h1 sat idle for 1,440 minutes, £84.00 wasted this week');
    expect(finding!.change).toMatchObject({ instruction: expect.stringMatching(/^Scale down GPU 3 on host h1/) });
    expect(detectIdleGpus(input({ gpus: [{ ...idle, pricePerHourMicros: undefined }] }))).toEqual([]);
  });
});

describe('duplicate requests (the same body sent again)', () => {
  const repeat = (overrides: Partial<RepeatSlice>): RepeatSlice => ({ ...slice({ usage: plainUsage(400_000, 40_000) }), requests: 40, repeatedBodies: 8, ...overrides });

  it('prices the repeats as the saving of caching their answers', () => {
    const [finding, ...others] = detectDuplicates(input({ windowDays: 10, repeats: [repeat({})] }));
    expect(others).toHaveLength(0);
    // 40 repeats on gpt-4o: 0.4M × $2.50 + 0.04M × $10 = $1.40 → £1.05, all saved from a cache; × 30 / 10 days = £3.15 a month.
    expect(finding).toMatchObject({
      kind: 'duplicate-requests',
      fingerprint: 'duplicate-requests:key-1:openai:gpt-4o',
      currentCostMicros: 1_050_000n,
      counterfactualCostMicros: 0n,
      monthlySavingMicros: 3_150_000n,
      confidence: 'medium',
      evidence: { requests: 40, exampleRequestIds: ['req-3', 'req-2', 'req-1'], facts: { repeatedBodies: 8 } },
      change: { action: 'manual', instruction: 'Cache the answers to repeated gpt-4o requests of key backend and serve repeats from the cache' },
    });
    expect(describeFinding(finding!)).toEqual({
      title: 'Key backend sends the same gpt-4o requests again',
      text: '8 request bodies were sent more than once: the 40 repeats cost £1.05. Caching their answers would save about £3.15 a month.',
    });
  });

  it('finds nothing under 10 repeats, for unpriced models or repeats that cost nothing', () => {
    const repeats = [repeat({ requests: 9 }), repeat({ model: 'in-house-llm' }), repeat({ usage: plainUsage(0, 0) })];
    expect(detectDuplicates(input({ repeats }))).toEqual([]);
  });
});

describe('output limits far above the outputs seen', () => {
  const limits = (overrides: Partial<OutputLimitSlice>): OutputLimitSlice => ({
    ...slice({ requests: 300, usage: plainUsage(300_000, 60_000) }),
    smallestRequestedOutputTokens: 4_096,
    largestRequestedOutputTokens: 16_384,
    largestOutputTokens: 700,
    ...overrides,
  });

  it('prices the output each request reserves at the limit asked and at twice the longest answer', () => {
    const [finding, ...others] = detectOversizedOutputLimits(input({ outputLimits: [limits({})] }));
    expect(others).toHaveLength(0);
    // Spend as billed either way: 0.3M × $2.50 + 0.06M × $10 = $1.35 → £1.0125; nothing saved.
    // Reserved per request: 16,384 × $10 / 1M = $0.16384 → £0.12288; at a cap of 1,536 (2 × 700 rounded up to 256s): $0.01536 → £0.01152.
    expect(finding).toMatchObject({
      kind: 'oversized-output-limit',
      fingerprint: 'oversized-output-limit:key-1:openai:gpt-4o',
      currentCostMicros: 1_012_500n,
      counterfactualCostMicros: 1_012_500n,
      monthlySavingMicros: 0n,
      confidence: 'high',
      evidence: {
        requests: 300,
        facts: { largestRequestedOutputTokens: 16_384, largestOutputTokens: 700, suggestedCap: 1_536, reservedOutputMicros: 122_880, reservedOutputAtCapMicros: 11_520 },
      },
      change: { action: 'manual', instruction: 'Set max_tokens to 1536 on gpt-4o requests of key backend' },
    });
    expect(describeFinding(finding!)).toEqual({
      title: 'Key backend asks gpt-4o for far more output than it gets',
      text:
        '300 requests cost £1.0125 asking for up to 16,384 output tokens; the longest answer was 700. Each request reserves £0.12288 of output on its budgets ' +
        '(£0.01152 at a limit of 1,536), so a hard budget refuses or caps requests sooner. Spend does not change.',
    });
  });

  it('caps the live key’s output in one click at twice the longest answer the key got on any model', () => {
    const [alone] = detectOversizedOutputLimits(input({ outputLimits: [limits({})], keys: [backend] }));
    expect(alone!.change).toEqual({
      action: 'key-setting',
      keyId: 'key-1',
      settings: { maxOutputTokens: 1_536 },
      description: 'Cap every answer of key backend at 1536 output tokens, at least twice the longest it got',
    });
    // The key's answers on another model ran to 3,000 tokens: the key's cap is 6,144 (2 × 3,000 rounded up to 256s), still under 16,384 asked.
    const longer = slice({ model: 'gpt-4.1', largestOutputTokens: 3_000, usage: plainUsage(1, 3_000) });
    const [shared] = detectOversizedOutputLimits(input({ outputLimits: [limits({})], slices: [longer], keys: [backend] }));
    // Reserved at that cap: 6,144 × $10 / 1M = $0.06144 → £0.04608.
    expect(shared).toMatchObject({ change: { settings: { maxOutputTokens: 6_144 } }, evidence: { facts: { suggestedCap: 6_144, reservedOutputAtCapMicros: 46_080 } } });
    // Answers of 9,000 tokens elsewhere: a key-wide cap (18,176) would lower nothing asked here, so the change is this model's limit.
    const longest = { ...longer, largestOutputTokens: 9_000 };
    const [manual] = detectOversizedOutputLimits(input({ outputLimits: [limits({})], slices: [longest], keys: [backend] }));
    expect(manual).toMatchObject({
      change: { action: 'manual', instruction: 'Set max_tokens to 1536 on gpt-4o requests of key backend' },
      evidence: { facts: { suggestedCap: 1_536 } },
    });
  });

  it('finds nothing when a limit asked is under 4 × the longest answer, or on fewer than 20 requests', () => {
    const outputLimits = [limits({ smallestRequestedOutputTokens: 2_799 }), limits({ requests: 19 }), limits({ model: 'in-house-llm' })];
    expect(detectOversizedOutputLimits(input({ outputLimits }))).toEqual([]);
    // Exactly 4 × 700 is far enough.
    expect(detectOversizedOutputLimits(input({ outputLimits: [limits({ smallestRequestedOutputTokens: 2_800 })] }))).toHaveLength(1);
  });
});

describe('all detectors', () => {
  it('orders findings by monthly saving and refuses a window under a day', () => {
    const findings = detectFindings(
      input({
        slices: [slice({ usage: plainUsage(1_000_000, 100_000) }), slice({ keyId: 'key-2', model: 'o4-mini', usage: { ...plainUsage(100_000, 1_000_000), reasoningTokens: 800_000 } })],
        keys: [{ id: 'k-idle', name: 'idle', kind: 'byok', connectionId: 'conn-openai', createdAt: daysBefore(40), lastUsedAt: null }],
      }),
    );
    expect(findings.map((f) => f.kind)).toEqual(['cheaper-model', 'reasoning-heavy', 'idle-key']);
    const savings = findings.map((f) => f.monthlySavingMicros);
    expect([...savings].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0))).toEqual(savings);
    expect(() => detectFindings(input({ windowDays: 0 }))).toThrow(RangeError);
  });
});

describe('written wording', () => {
  const template = { title: 'Use gpt-5-mini instead of gpt-4o', text: '200 requests cost £2.625 on gpt-4o: about £4.575 a month.' };

  it('accepts a rewording that keeps to the detector’s figures', () => {
    expect(acceptRewording(template, 'TITLE: Switch to gpt-5-mini\nTEXT: Moving gpt-4o traffic to gpt-5-mini saves about £4.575 a month.')).toEqual({
      title: 'Switch to gpt-5-mini',
      text: 'Moving gpt-4o traffic to gpt-5-mini saves about £4.575 a month.',
    });
  });

  it('keeps the template when a number is new, changed or a line is missing', () => {
    expect(acceptRewording(template, 'TITLE: Switch\nTEXT: Saves about £4.58 a month.')).toBeUndefined();
    expect(acceptRewording(template, 'TITLE: Switch\nTEXT: Saves £4.575 a month, 90% less.')).toBeUndefined();
    expect(acceptRewording(template, 'Saves £4.575 a month.')).toBeUndefined();
    expect(rewordingPrompt(template).user).toBe(`TITLE: ${template.title}\nTEXT: ${template.text}`);
  });
});
