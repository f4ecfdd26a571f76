// What the audit log may hold of a change: its before and after values with every secret
// replaced by "[redacted]" — API keys and provider keys, connection secrets, tokens,
// passwords (by the field's name, or by the value's look for a key pasted elsewhere), and
// the secret parts of URLs (credentials, query strings, a webhook's path), and phone numbers
// but their last four digits. One helper, applied by the store to every entry it writes.

export const REDACTED = '[redacted]';

/** Field names whose string values are secrets. */
const SECRET_FIELD = /(pass(word|phrase)?|secret|token|api[-_]?key|^key$|authori[sz]ation|credential|private[-_]?key|cookie|signature)$/i;
/** Field names whose URL's path is a secret (a Slack or Teams webhook's). */
const WEBHOOK_FIELD = /webhook/i;
/** Values that are keys wherever they appear: Spendgate's issued keys, OpenAI/Anthropic-style keys, bearer tokens. */
const KEY_LIKE = /^(sg_[a-z]+_[0-9A-Za-z]{16,}|sk-[0-9A-Za-z_-]{16,}|Bearer\s+\S+)$/;

/** An E.164 phone number (an SMS alert channel's): kept as its last four digits. */
const PHONE = /^\+[1-9]\d{6,14}$/;

function redactUrl(value: string, webhook: boolean): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return value;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return value;
  const credentials = url.username || url.password ? `${REDACTED}@` : '';
  const path = webhook && url.pathname !== '/' ? `/${REDACTED}` : url.pathname;
  const query = url.search ? `?${REDACTED}` : '';
  // Nothing secret in it: the URL as it was given, not as URL would normalise it.
  if (!credentials && !query && path === url.pathname) return value;
  return `${url.protocol}//${credentials}${url.host}${path}${query}`;
}

function redactValue(value: unknown, field: string): unknown {
  if (typeof value === 'string') {
    if (SECRET_FIELD.test(field) || KEY_LIKE.test(value.trim())) return REDACTED;
    if (PHONE.test(value)) return `${REDACTED}${value.slice(-4)}`;
    return /^https?:\/\//i.test(value) ? redactUrl(value, WEBHOOK_FIELD.test(field)) : value;
  }
  if (Array.isArray(value)) return value.map((item) => redactValue(item, field));
  if (value !== null && typeof value === 'object') {
    if (SECRET_FIELD.test(field)) return REDACTED;
    return Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, redactValue(inner, name)]));
  }
  return value;
}

/** A copy of `values` fit for the audit log: every secret in it, however deep, replaced by "[redacted]". */
export function redactSecrets<T extends Record<string, unknown>>(values: T): Record<string, unknown> {
  return redactValue(values, '') as Record<string, unknown>;
}
