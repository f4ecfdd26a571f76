import { describe, expect, it } from 'vitest';
import { modelOverrideProblem, withKeySettingChange } from './key-settings.ts';

/** Connections as the check sees them: `own` is the key's, `azure` another of the team's; each lists some models. */
const served: Record<string, string[]> = { own: ['gpt-4o', 'gpt-5-mini'], azure: ['gpt-4o'] };
const whyNotServed = (model: string, connectionId: string | undefined) => {
  const connection = connectionId ?? 'own';
  if (!(connection in served)) return 'no such connection in this team';
  return served[connection]!.includes(model) ? undefined : `"${model}" is not a model that connection serves`;
};

describe('model overrides', () => {
  it('accepts another model, or the same model through another connection', () => {
    expect(modelOverrideProblem([{ replace: 'gpt-4o', with: 'gpt-5-mini' }, { replace: 'gpt-4.1', with: 'gpt-4o', connectionId: 'azure' }], 'byok', whyNotServed)).toBeUndefined();
    expect(modelOverrideProblem([{ replace: 'gpt-4o', with: 'gpt-4o', connectionId: 'azure' }], 'byok', whyNotServed)).toBeUndefined();
    expect(modelOverrideProblem([], 'optimised', whyNotServed)).toBeUndefined();
  });

  it('names the field of the first problem', () => {
    const problem = (overrides: Parameters<typeof modelOverrideProblem>[0], kind: 'byok' | 'optimised' | 'byom' = 'byok') => modelOverrideProblem(overrides, kind, whyNotServed);
    expect(problem([{ replace: 'gpt-4o', with: 'gpt-4o' }])).toEqual({
      field: 'settings.modelOverrides.0.with',
      message: 'settings.modelOverrides.0.with must differ from replace, or name the connection that serves it',
    });
    expect(problem([{ replace: 'gpt-4o', with: 'gpt-5-mini' }, { replace: 'gpt-4o', with: 'gpt-4o', connectionId: 'azure' }])).toEqual({
      field: 'settings.modelOverrides.1.replace',
      message: 'settings.modelOverrides.1.replace: "gpt-4o" is already replaced by settings.modelOverrides.0',
    });
    expect(problem([{ replace: 'gpt-4o', with: 'claude-haiku-4-5' }])).toEqual({
      field: 'settings.modelOverrides.0.with',
      message: 'settings.modelOverrides.0: "claude-haiku-4-5" is not a model that connection serves',
    });
    expect(problem([{ replace: 'gpt-4o', with: 'gpt-5-mini', connectionId: 'azure' }])?.field).toBe('settings.modelOverrides.0.connectionId');
    expect(problem([{ replace: 'gpt-4o', with: 'gpt-4o', connectionId: 'gone' }])).toEqual({
      field: 'settings.modelOverrides.0.connectionId',
      message: 'settings.modelOverrides.0: no such connection in this team',
    });
    expect(problem([{ replace: 'gpt-4o', with: 'gpt-4o', connectionId: 'azure' }], 'optimised')).toEqual({
      field: 'settings.modelOverrides.0.connectionId',
      message: 'settings.modelOverrides.0.connectionId: only BYOK keys send a model through another connection; optimised keys are routed by Spendgate',
    });
    expect(problem([{ replace: 'x', with: 'gpt-4o', connectionId: 'azure' }], 'byom')?.message).toContain('BYOM keys use their own model endpoint');
  });
});

describe('a key-setting change merged into a key’s settings', () => {
  it('replaces the override of the same model, adds the others after, and keeps the rest', () => {
    const settings = { timeoutMs: 10_000, modelOverrides: [{ replace: 'a', with: 'b' }, { replace: 'c', with: 'd' }] };
    expect(withKeySettingChange(settings, { modelOverrides: [{ replace: 'c', with: 'e', connectionId: 'azure' }, { replace: 'f', with: 'g' }] })).toEqual({
      timeoutMs: 10_000,
      modelOverrides: [{ replace: 'a', with: 'b' }, { replace: 'c', with: 'e', connectionId: 'azure' }, { replace: 'f', with: 'g' }],
    });
    expect(settings.modelOverrides).toHaveLength(2);
  });

  it('lowers the output cap, never raises it', () => {
    expect(withKeySettingChange({}, { maxOutputTokens: 1024 })).toEqual({ maxOutputTokens: 1024 });
    expect(withKeySettingChange({ maxOutputTokens: 4096 }, { maxOutputTokens: 1024 })).toEqual({ maxOutputTokens: 1024 });
    expect(withKeySettingChange({ maxOutputTokens: 512, rateLimit: { requestsPerMinute: 5 } }, { maxOutputTokens: 1024 })).toEqual({
      maxOutputTokens: 512,
      rateLimit: { requestsPerMinute: 5 },
    });
  });
});
