// The connection form's checks and payloads: what each provider requires, the base
// URL's rules, and an edit sending only what changed.
import { describe, expect, it } from 'vitest';
import type { Connection, Provider } from '../../api/connections/types.ts';
import { emptyValues, toChanges, toNewConnection, validateConnection, valuesOf } from './connection-form.ts';

const provider = (id: string, changes: Partial<Provider> = {}): Provider => ({
  id,
  name: id,
  format: 'openai',
  authFields: [{ name: 'apiKey', label: 'API key', type: 'secret', required: true }],
  baseUrl: { default: 'https://api.openai.com/v1', required: false, rules: 'http(s) only' },
  models: [],
  optionFields: [],
  ...changes,
});
const openai = provider('openai');
const azure = provider('azure-openai', {
  name: 'Azure OpenAI',
  baseUrl: { default: null, required: true, rules: 'http(s) only' },
  optionFields: [{ name: 'apiVersion', label: 'API version', help: '', placeholder: '2024-10-21' }],
});
const selfHosted = provider('openai-compatible', {
  authFields: [{ name: 'apiKey', label: 'API key', type: 'secret', required: false }],
  baseUrl: { default: null, required: true, rules: 'http(s) only' },
});

describe('validateConnection', () => {
  it('names every missing required field', () => {
    expect(validateConnection(emptyValues('', 'openai'), openai, 'create')).toEqual({
      teamId: 'Choose the team this connection belongs to',
      name: 'Name the connection',
      apiKey: 'Enter the API key',
    });
    expect(validateConnection(emptyValues('t', 'azure-openai'), azure, 'create')).toMatchObject({ baseUrl: 'Enter the base URL: Azure OpenAI has no default' });
    expect(validateConnection({ ...emptyValues('t', 'x'), name: 'n', apiKey: 'k' }, undefined, 'create')).toEqual({ provider: 'Choose a provider' });
  });

  it('lets a self-hosted endpoint go without a key, and an edit keep the stored key', () => {
    expect(validateConnection({ ...emptyValues('t', 'openai-compatible'), name: 'Ollama', baseUrl: 'http://10.0.0.5:11434/v1' }, selfHosted, 'create')).toEqual({});
    expect(validateConnection({ ...emptyValues('t', 'openai'), name: 'Prod' }, openai, 'edit')).toEqual({});
  });

  it("refuses a base URL the API would: not a URL, not http(s), with credentials", () => {
    const withUrl = (baseUrl: string) => validateConnection({ ...emptyValues('t', 'openai'), name: 'n', apiKey: 'k', baseUrl }, openai, 'create').baseUrl;
    expect(withUrl('api.openai.com')).toBe('Enter a full URL, such as https://api.example.com/v1');
    expect(withUrl('ftp://files.example.com')).toBe('The base URL must start with https:// or http://');
    expect(withUrl('https://user:secret@api.example.com/v1')).toBe('The base URL must not contain a user name or password');
    expect(withUrl('https://proxy.example.com/v1')).toBeUndefined();
  });

  it('bounds the name and the options as the API does', () => {
    const values = { ...emptyValues('t', 'azure-openai'), name: 'x'.repeat(201), apiKey: 'k', baseUrl: 'https://r.openai.azure.com', options: { apiVersion: 'v'.repeat(501) } };
    expect(validateConnection(values, azure, 'create')).toEqual({
      name: 'The name must be at most 200 characters',
      'options.apiVersion': 'The API version must be at most 500 characters',
    });
  });
});

describe('payloads', () => {
  it('a new connection leaves out an empty base URL and empty options, and trims', () => {
    expect(toNewConnection({ ...emptyValues('t', 'openai'), name: ' Prod ', apiKey: ' sk-1 ' }, openai)).toEqual({ teamId: 't', provider: 'openai', name: 'Prod', apiKey: 'sk-1' });
    expect(toNewConnection({ ...emptyValues('t', 'azure-openai'), name: 'Az', apiKey: 'k', baseUrl: 'https://r.openai.azure.com', options: { apiVersion: '2025-01-01-preview' } }, azure)).toEqual({
      teamId: 't',
      provider: 'azure-openai',
      name: 'Az',
      apiKey: 'k',
      baseUrl: 'https://r.openai.azure.com',
      options: { apiVersion: '2025-01-01-preview' },
    });
  });

  it('an edit sends only what changed, and the key only when a new one is typed', () => {
    const stored: Connection = {
      id: 'c',
      teamId: 't',
      provider: 'azure-openai',
      name: 'Az',
      baseUrl: 'https://r.openai.azure.com',
      baseUrlProblem: null,
      status: 'active',
      options: { apiVersion: '2024-10-21' },
      apiKeyTail: '••••abcd',
      createdAt: '2026-11-01T00:00:00.000Z',
    };
    const values = valuesOf(stored);
    expect(values.apiKey).toBe('');
    expect(toChanges(values, stored, azure)).toEqual({});
    expect(toChanges({ ...values, name: 'Azure EU' }, stored, azure)).toEqual({ name: 'Azure EU' });
    expect(toChanges({ ...values, apiKey: 'new-key' }, stored, azure)).toEqual({ apiKey: 'new-key' });
    expect(toChanges({ ...values, options: { apiVersion: '2025-01-01-preview' } }, stored, azure)).toEqual({ options: { apiVersion: '2025-01-01-preview' } });
  });
});
