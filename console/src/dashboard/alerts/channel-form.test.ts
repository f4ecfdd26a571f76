import { describe, expect, it } from 'vitest';
import { channelInput, NEW_CHANNEL_FIELDS } from './channel-form.ts';

describe('the add-channel form', () => {
  it('sends only the fields of the chosen kind, trimmed, addresses split on commas and spaces', () => {
    const fields = { ...NEW_CHANNEL_FIELDS, name: ' Finance ', addresses: 'a@example.com, b@example.com  c@example.com', webhookUrl: 'https://hooks.example/x', accountSid: 'AC1', authToken: 't', from: '+1', to: '+2' };
    expect(channelInput('t1', fields)).toEqual({ kind: 'email', teamId: 't1', name: 'Finance', addresses: ['a@example.com', 'b@example.com', 'c@example.com'] });
    expect(channelInput('t1', { ...fields, kind: 'teams', webhookUrl: ' https://hooks.example/x ' })).toEqual({ kind: 'teams', teamId: 't1', name: 'Finance', webhookUrl: 'https://hooks.example/x' });
    expect(channelInput('t1', { ...fields, kind: 'sms', to: ' +447700900123 ' })).toEqual({ kind: 'sms', teamId: 't1', name: 'Finance', accountSid: 'AC1', authToken: 't', from: '+1', to: '+447700900123' });
  });
});
