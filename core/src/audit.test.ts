import { describe, expect, it } from 'vitest';
import { REDACTED, redactSecrets } from './audit.ts';

describe('redactSecrets', () => {
  it('replaces secret fields and key-looking values wherever they are', () => {
    expect(redactSecrets({ clientSecret: 's3cret', nested: { apiKey: 'abc', note: 'sk-abcdefghijklmnopqrstuv' }, password: { any: 1 } })).toEqual({
      clientSecret: REDACTED,
      nested: { apiKey: REDACTED, note: REDACTED },
      password: REDACTED,
    });
  });

  it('keeps a URL with nothing secret in it exactly as given', () => {
    expect(redactSecrets({ issuer: 'http://127.0.0.1:37653' })).toEqual({ issuer: 'http://127.0.0.1:37653' });
    expect(redactSecrets({ url: 'https://dcgm.example:9400/metrics' })).toEqual({ url: 'https://dcgm.example:9400/metrics' });
  });

  it("hides a URL's credentials, query and a webhook's path", () => {
    expect(redactSecrets({ url: 'https://user:pw@host.example/path?token=x' })).toEqual({ url: `https://${REDACTED}@host.example/path?${REDACTED}` });
    expect(redactSecrets({ webhookUrl: 'https://hooks.slack.com/services/T0/B0/XYZ' })).toEqual({ webhookUrl: `https://hooks.slack.com/${REDACTED}` });
  });

  it("keeps a phone number's last four digits only", () => {
    expect(redactSecrets({ to: '+447700900123', from: '+15005550006', count: '12345678' })).toEqual({ to: `${REDACTED}0123`, from: `${REDACTED}0006`, count: '12345678' });
  });
});
