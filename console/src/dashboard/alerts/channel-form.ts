/**
 * The add-channel form's fields and the request they make: each kind asks for its own
 * (addresses; a webhook URL; Twilio's account SID, auth token and numbers). The server
 * checks everything again and names the field it refuses.
 */
import type { AlertChannelInput, AlertChannelKind } from '../../api/alerts/types.ts';

export const CHANNEL_KIND_LABELS: Record<AlertChannelKind, string> = { email: 'E-mail', slack: 'Slack', teams: 'Microsoft Teams', sms: 'SMS' };

export interface ChannelFields {
  kind: AlertChannelKind;
  name: string;
  addresses: string;
  webhookUrl: string;
  accountSid: string;
  authToken: string;
  from: string;
  to: string;
}

export const NEW_CHANNEL_FIELDS: ChannelFields = { kind: 'email', name: '', addresses: '', webhookUrl: '', accountSid: '', authToken: '', from: '', to: '' };

/**
 * @example channelInput('t1', { ...NEW_CHANNEL_FIELDS, name: 'Finance', addresses: 'a@x.com, b@x.com' })
 *   // { kind: 'email', teamId: 't1', name: 'Finance', addresses: ['a@x.com', 'b@x.com'] }
 */
export function channelInput(teamId: string, fields: ChannelFields): AlertChannelInput {
  const name = fields.name.trim();
  if (fields.kind === 'email') {
    const addresses = fields.addresses.split(/[,\s]+/).filter(Boolean);
    return { kind: 'email', teamId, name, addresses };
  }
  if (fields.kind === 'sms') return { kind: 'sms', teamId, name, accountSid: fields.accountSid.trim(), authToken: fields.authToken.trim(), from: fields.from.trim(), to: fields.to.trim() };
  return { kind: fields.kind, teamId, name, webhookUrl: fields.webhookUrl.trim() };
}
