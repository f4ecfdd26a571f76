import { KEY_SETTING_LIMITS } from '@spendgate/core';
import { describe, expect, it } from 'vitest';
import type { KeyKind } from '../../api/keys/types.ts';
import { EMPTY_SETTINGS_FIELDS, type ModelOverrideFields, type NewKeyFields, readKeySettings, readNewKey, settingsFieldsFrom } from './key-form.ts';

const fields = (changes: Partial<NewKeyFields>): NewKeyFields => ({ ...EMPTY_SETTINGS_FIELDS, name: 'Checkout', kind: 'byok', connectionId: 'c1', ...changes });

describe('readNewKey', () => {
  it('needs a name and, for BYOK and BYOM keys, a connection', () => {
    expect(readNewKey(fields({ name: '  ', connectionId: '' })).errors).toEqual({ name: 'Name is required', connectionId: 'Choose the connection the key uses' });
    expect(readNewKey(fields({ kind: 'byom', connectionId: '' })).errors).toEqual({ connectionId: 'Choose the connection to your own model endpoint' });
    expect(readNewKey(fields({ name: 'x'.repeat(201) })).errors.name).toBe('Name must be at most 200 characters');
    expect(readNewKey(fields({ name: 'a\tb' })).errors.name).toBe('Name must not contain control characters');
  });

  it('sends an optimised key without a connection, and empty settings not at all', () => {
    expect(readNewKey(fields({ kind: 'optimised', connectionId: 'c1', name: ' Router ' }))).toEqual({ input: { name: 'Router', kind: 'optimised' }, errors: {} });
    expect(readNewKey(fields({}))).toEqual({ input: { name: 'Checkout', kind: 'byok', connectionId: 'c1' }, errors: {} });
  });
});

describe('readKeySettings', () => {
  it('reads limits as whole numbers within the API’s bounds', () => {
    const read = (changes: Partial<typeof EMPTY_SETTINGS_FIELDS>) => readKeySettings({ ...EMPTY_SETTINGS_FIELDS, ...changes }, 'byok');
    expect(read({ requestsPerMinute: '60', tokensPerMinute: '100000', timeoutMs: '10000' })).toEqual({
      settings: { rateLimit: { requestsPerMinute: 60, tokensPerMinute: 100_000 }, timeoutMs: 10_000 },
      errors: {},
    });
    expect(read({ requestsPerMinute: '0' }).errors.requestsPerMinute).toBe('Requests per minute must be at least 1');
    expect(read({ requestsPerMinute: '1.5' }).errors.requestsPerMinute).toBe('Requests per minute must be a whole number');
    expect(read({ tokensPerMinute: 'many' }).errors.tokensPerMinute).toBe('Tokens per minute must be a whole number');
    expect(read({ tokensPerMinute: String(KEY_SETTING_LIMITS.maxPerMinute + 1) }).errors.tokensPerMinute).toBe('Tokens per minute must be at most 100,000,000');
    expect(read({ timeoutMs: '10' }).errors.timeoutMs).toBe('Timeout must be at least 1,000');
    expect(read({ timeoutMs: '600001' }).errors.timeoutMs).toBe('Timeout must be at most 600,000');
  });

  it('reads routing only for optimised keys: three weights, not all zero, at most 5 fallback model ids', () => {
    const routing = { ...EMPTY_SETTINGS_FIELDS, weightCost: '0.6', weightSpeed: '0.2', weightAccuracy: '0.2', fallbacks: 'gpt-4o-mini, claude-haiku-4-5' };
    expect(readKeySettings(routing, 'byok')).toEqual({ settings: {}, errors: {} });
    expect(readKeySettings(routing, 'optimised')).toEqual({
      settings: { routing: { weights: { cost: 0.6, speed: 0.2, accuracy: 0.2 }, fallbacks: ['gpt-4o-mini', 'claude-haiku-4-5'] } },
      errors: {},
    });
    const read = (changes: Partial<typeof EMPTY_SETTINGS_FIELDS>) => readKeySettings({ ...EMPTY_SETTINGS_FIELDS, ...changes }, 'optimised').errors;
    expect(read({ weightCost: '1' })).toEqual({ weightSpeed: 'Speed weight is required when any weight is set', weightAccuracy: 'Accuracy weight is required when any weight is set' });
    expect(read({ weightCost: '0', weightSpeed: '0', weightAccuracy: '0' })).toEqual({ weightCost: 'The weights must not all be zero' });
    expect(read({ weightCost: '-1', weightSpeed: '1', weightAccuracy: '1' })).toEqual({ weightCost: 'Cost weight must be a number of at least 0' });
    expect(read({ weightCost: '1001', weightSpeed: '1', weightAccuracy: '1' })).toEqual({ weightCost: 'Cost weight must be at most 1000' });
    expect(read({ fallbacks: 'a,b,c,d,e,f' })).toEqual({ fallbacks: 'Name at most 5 fallback models' });
    expect(read({ fallbacks: 'gpt-4o\ngpt 4' })).toEqual({ fallbacks: '"gpt 4" is not a model id (printable characters, no spaces, at most 256)' });
  });

  it('shows stored settings in the fields they came from', () => {
    const settings = { rateLimit: { requestsPerMinute: 5 }, timeoutMs: 2000, routing: { weights: { cost: 1, speed: 0, accuracy: 2 }, fallbacks: ['a', 'b'] } };
    const shown = settingsFieldsFrom(settings);
    expect(shown).toEqual({
      requestsPerMinute: '5',
      tokensPerMinute: '',
      timeoutMs: '2000',
      weightCost: '1',
      weightSpeed: '0',
      weightAccuracy: '2',
      fallbacks: 'a, b',
      maxOutputTokens: '',
      modelOverrides: [],
    });
    expect(readKeySettings(shown, 'optimised')).toEqual({ settings, errors: {} });
    const overridden = { maxOutputTokens: 1024, modelOverrides: [{ replace: 'gpt-4o', with: 'gpt-4o-mini' }, { replace: 'gpt-4.1', with: 'gpt-4.1', connectionId: 'c2' }] };
    expect(readKeySettings(settingsFieldsFrom(overridden), 'byok')).toEqual({ settings: overridden, errors: {} });
  });

  it('reads the output cap as a whole number from 1 to 10,000,000', () => {
    const read = (maxOutputTokens: string) => readKeySettings({ ...EMPTY_SETTINGS_FIELDS, maxOutputTokens }, 'byok');
    expect(read(' 2048 ')).toEqual({ settings: { maxOutputTokens: 2048 }, errors: {} });
    expect(read('0').errors).toEqual({ maxOutputTokens: 'Max output tokens must be at least 1' });
    expect(read('10000001').errors).toEqual({ maxOutputTokens: 'Max output tokens must be at most 10,000,000' });
    expect(read('lots').errors).toEqual({ maxOutputTokens: 'Max output tokens must be a whole number' });
  });

  it('reads model overrides row by row, naming the part of the row that is wrong', () => {
    const read = (modelOverrides: ModelOverrideFields[], kind: KeyKind = 'byok') => readKeySettings({ ...EMPTY_SETTINGS_FIELDS, modelOverrides }, kind);
    const row = (replace: string, sent: string, connectionId = '') => ({ replace, with: sent, connectionId });
    // A blank row is nothing; a connection is a BYOK key's only.
    expect(read([row(' gpt-4o ', 'gpt-4o-mini'), row('', ''), row('gpt-4.1', 'gpt-4.1', 'c2')])).toEqual({
      settings: { modelOverrides: [{ replace: 'gpt-4o', with: 'gpt-4o-mini' }, { replace: 'gpt-4.1', with: 'gpt-4.1', connectionId: 'c2' }] },
      errors: {},
    });
    expect(read([row('gpt-4o', 'claude-haiku-4-5', 'c2')], 'optimised').settings).toEqual({ modelOverrides: [{ replace: 'gpt-4o', with: 'claude-haiku-4-5' }] });
    expect(read([row('gpt-4o', ''), row('', 'gpt-4o-mini')]).errors).toEqual({
      'modelOverrides.0.with': 'Name the model to send instead',
      'modelOverrides.1.replace': 'Name the model asked for',
    });
    expect(read([row('gpt-4o', 'gpt-4o-mini'), row('gpt-4o', 'gpt-4.1-nano')]).errors).toEqual({ 'modelOverrides.1.replace': 'gpt-4o is already replaced above' });
    expect(read([row('gpt-4o', 'gpt-4o')]).errors).toEqual({ 'modelOverrides.0.with': 'Send another model, or choose the connection that serves it' });
    expect(read([row('gpt 4o', 'gpt-4o-mini')]).errors).toEqual({ 'modelOverrides.0.replace': '"gpt 4o" is not a model id (printable characters, no spaces, at most 256)' });
  });
});
