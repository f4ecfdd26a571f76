/**
 * The request generator behind fuzz.test.ts, seeded so a run can be repeated: valid
 * values from an OpenAPI operation's JSON schemas, then mutations of them — wrong types,
 * NUL and control characters, huge strings and numbers, deep nesting, missing and extra
 * fields, bad ids, bad JSON — and the check that no response header carries a long run
 * of what the request sent.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON schema as the OpenAPI document writes one (the parts the generator reads). */
export interface JsonSchema {
  type?: string | string[];
  enum?: Json[];
  const?: Json;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minItems?: number;
  maxItems?: number;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: JsonSchema | boolean;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  default?: Json;
}

/** A seeded pseudo-random source (mulberry32): the same seed gives the same requests. */
export function seededRandom(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (below: number) => Math.floor(next() * below);
  return {
    next,
    int,
    chance: (probability: number) => next() < probability,
    pick: <T>(items: readonly T[]): T => items[int(items.length)]!,
    /** `count` distinct items (all of them when there are fewer). */
    sample: <T>(items: readonly T[], count: number): T[] => {
      const pool = [...items];
      const chosen: T[] = [];
      while (chosen.length < count && pool.length > 0) chosen.push(pool.splice(int(pool.length), 1)[0]!);
      return chosen;
    },
  };
}
export type Random = ReturnType<typeof seededRandom>;

// ─── raw JSON text ──────────────────────────────────────────────────────────

/**
 * JSON text that no JSON value serialises to (a number past a double's range, 100k
 * levels of nesting): put in a value as its marker, spliced into the text by `toJsonText`.
 */
const RAW_TEXTS = {
  deepArrays: `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
  deepObjects: `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`,
  pastDouble: '1e400',
  pastSafeInteger: '9007199254740993',
  pastBigint: '123456789012345678901234567890',
  negativeZero: '-0',
  protoKey: '{"__proto__":{"polluted":true}}',
} as const;
const rawMarker = (name: keyof typeof RAW_TEXTS) => `\u0001raw:${name}\u0001`;
const RAW_MARKER = /"\\u0001raw:(\w+)\\u0001"/g;

/** The value's JSON text, with raw markers replaced by their text. */
export function toJsonText(value: Json | undefined): string {
  return (JSON.stringify(value) ?? '').replace(RAW_MARKER, (_, name: keyof typeof RAW_TEXTS) => RAW_TEXTS[name]);
}

// ─── mutations ──────────────────────────────────────────────────────────────

const MEGABYTE = 1024 * 1024;

/** What replaces a field's value: each labelled, for the failure report. */
export const MUTATIONS: ReadonlyArray<readonly [label: string, value: () => Json]> = [
  ['null', () => null],
  ['true', () => true],
  ['zero', () => 0],
  ['negative', () => -1],
  ['fraction', () => 1.5],
  ['huge number', () => 1e308],
  ['huge negative', () => -1e308],
  ['number past a double', () => rawMarker('pastDouble')],
  ['integer past 2^53', () => rawMarker('pastSafeInteger')],
  ['integer past bigint', () => rawMarker('pastBigint')],
  ['digits past bigint as text', () => '99999999999999999999999999999'],
  ['negative zero', () => rawMarker('negativeZero')],
  ['empty string', () => ''],
  ['blank', () => '   '],
  ['NUL', () => '\u0000'],
  ['NUL inside', () => 'name\u0000with a NUL'],
  ['CR LF header injection', () => 'gpt-4o\r\nx-injected: yes'],
  ['control characters', () => '\t\u0007\u001b[2J\u007f\u0085'],
  ['lone surrogate', () => '\ud800'],
  ['right-to-left override', () => 'abc\u202edef'],
  ['unicode', () => 'ünïcödé ✓ 🙂'],
  ['path traversal', () => '../../../etc/passwd'],
  ['SQL', () => "'; drop table users; --"],
  ['markup', () => '<script>alert(1)</script>'],
  ['long string', () => 'x'.repeat(5000)],
  ['1 MB string', () => 'y'.repeat(MEGABYTE)],
  ['empty array', () => []],
  ['array of null', () => [null]],
  ['nested arrays', () => [[[]]]],
  ['array of strings', () => ['a', 'b']],
  ['empty object', () => ({})],
  ['object', () => ({ type: 'text', text: 5, role: null })],
  ['100k-deep arrays', () => rawMarker('deepArrays')],
  ['20k-deep objects', () => rawMarker('deepObjects')],
  ['__proto__ key', () => rawMarker('protoKey')],
  ['10k-item array', () => Array.from({ length: 10_000 }, (_, index) => index)],
];

/** The mutations every field gets, beside those drawn at random: what most often broke a server. */
const EVERY_FIELD = new Set(['NUL inside', 'control characters', 'integer past bigint']);

/** Ids that name nothing, or nothing valid. */
export const BAD_IDS: readonly string[] = [
  'not-a-uuid',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '5B0E6F3C-1D2A-4C3B-8E4F-A1B2C3D4E5F6',
  '5b0e6f3c-1d2a-4c3b-8e4f-a1b2c3d4e5f6\u0000',
  '../../etc/passwd',
  '%00',
  ' ',
  'x'.repeat(5000),
  '1; drop table teams',
];

type Path = (string | number)[];

/** The path to every value inside `value` (not the root itself). */
export function pathsIn(value: Json, prefix: Path = []): Path[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => [[...prefix, index], ...pathsIn(item, [...prefix, index])]);
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => [[...prefix, key], ...pathsIn(item, [...prefix, key])]);
  }
  return [];
}

/** A copy of `value` with the value at `path` replaced, or removed when `replacement` is undefined. */
export function withValueAt(value: Json, path: Path, replacement: Json | undefined): Json {
  const copy = structuredClone(value);
  let parent = copy as Record<string | number, Json> | Json[];
  for (const step of path.slice(0, -1)) parent = (parent as Record<string | number, Json>)[step] as Record<string, Json>;
  const last = path.at(-1)!;
  if (replacement !== undefined) (parent as Record<string | number, Json>)[last] = replacement;
  else if (Array.isArray(parent)) parent.splice(last as number, 1);
  else delete (parent as Record<string, Json>)[last];
  return copy;
}

/** One body mutation: what changed, and the new body. */
export interface BodyMutation {
  label: string;
  body: Json;
}

/**
 * Mutations of a valid JSON body: every top-level field removed, and replaced by a NUL,
 * control characters, an integer past bigint and `perField` more mutation values drawn at
 * random; `nested` replacements at random paths below the top; and an extra field.
 */
export function bodyMutations(random: Random, valid: Json, options: { perField: number; nested: number }): BodyMutation[] {
  const mutations: BodyMutation[] = [];
  const top = valid !== null && typeof valid === 'object' && !Array.isArray(valid) ? Object.keys(valid) : [];
  for (const field of top) {
    mutations.push({ label: `${field} missing`, body: withValueAt(valid, [field], undefined) });
    const drawn = random.sample(
      MUTATIONS.filter(([label]) => !EVERY_FIELD.has(label)),
      options.perField,
    );
    for (const [label, value] of [...MUTATIONS.filter(([label]) => EVERY_FIELD.has(label)), ...drawn]) {
      mutations.push({ label: `${field}: ${label}`, body: withValueAt(valid, [field], value()) });
    }
  }
  const deeper = pathsIn(valid).filter((path) => path.length > 1);
  for (let i = 0; i < options.nested && deeper.length > 0; i++) {
    const path = random.pick(deeper);
    const [label, value] = random.pick(MUTATIONS);
    mutations.push({ label: `${path.join('.')}: ${label}`, body: withValueAt(valid, path, value()) });
  }
  if (top.length > 0) mutations.push({ label: 'extra field', body: { ...(valid as Record<string, Json>), unexpectedField: { nested: [1, 'two'] } } });
  return mutations;
}

/** Bodies that are not the JSON object a route wants, as text with their content type. */
export const WHOLE_BODY_MUTATIONS: ReadonlyArray<{ label: string; text: string | Uint8Array<ArrayBuffer>; contentType: string }> = [
  { label: 'malformed JSON', text: '{"name":', contentType: 'application/json' },
  { label: 'empty body', text: '', contentType: 'application/json' },
  { label: 'JSON null', text: 'null', contentType: 'application/json' },
  { label: 'JSON array', text: '[1,2,3]', contentType: 'application/json' },
  { label: 'JSON string', text: '"just text"', contentType: 'application/json' },
  { label: 'NUL bytes', text: '\u0000\u0000\u0000', contentType: 'application/json' },
  { label: 'invalid UTF-8', text: new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x22, 0x7d]), contentType: 'application/json' },
  { label: '100k-deep JSON', text: RAW_TEXTS.deepArrays, contentType: 'application/json' },
  { label: '20k-deep objects', text: RAW_TEXTS.deepObjects, contentType: 'application/json' },
  { label: '__proto__ body', text: RAW_TEXTS.protoKey, contentType: 'application/json' },
  { label: 'constructor.prototype body', text: '{"constructor":{"prototype":{"polluted":true}}}', contentType: 'application/json' },
  { label: 'duplicate keys', text: '{"model":"a","model":"b"}', contentType: 'application/json' },
  { label: 'form body', text: 'name=x&teamId=y', contentType: 'application/x-www-form-urlencoded' },
  { label: 'text body', text: 'hello', contentType: 'text/plain' },
  { label: 'odd content type', text: '{}', contentType: 'application/json; charset=ebcdic' },
  { label: '2 MB of JSON', text: `{"pad":"${'p'.repeat(2 * MEGABYTE)}"}`, contentType: 'application/json' },
];

// ─── valid values from a JSON schema ────────────────────────────────────────

/** What the generator needs to know beyond the schema: real ids and safe URLs. */
export interface ValueHints {
  /** A real id for a field (by its name, e.g. teamId) or undefined for a random one. */
  idFor(field: string): string | undefined;
  /** A URL a request may carry: loopback only, so nothing leaves this machine. */
  url: string;
}

let emailSequence = 0;

/** Values for fields whose rule the schema cannot say (a time zone, a model, a provider). */
const BY_FIELD_NAME: Record<string, () => Json> = {
  timeZone: () => 'Europe/London',
  model: () => 'gpt-4o-mini',
  provider: () => 'openai',
  password: () => 'a long and unusual passphrase',
  newPassword: () => 'another long unusual passphrase',
  currentPassword: () => 'not the current password',
  otp: () => '123456',
  apiKey: () => 'sk-fake-upstream',
  token: () => 'fuzz-token-0123456789abcdef',
  amount: () => '12.50',
  email: () => `fuzz${++emailSequence}@example.com`,
};

/** The value for a field the schema cannot describe fully, by its name. */
const byFieldName = (field: string): (() => Json) | undefined => BY_FIELD_NAME[field] ?? (field.endsWith('PerMTok') ? () => '1.25' : undefined);

function validString(random: Random, schema: JsonSchema, field: string, hints: ValueHints): string {
  if (schema.format === 'uuid') return hints.idFor(field) ?? crypto.randomUUID();
  if (schema.format === 'email') return `fuzz${++emailSequence}@example.com`;
  if (schema.format === 'uri') return hints.url;
  if (schema.format === 'date-time') return new Date().toISOString();
  if (schema.pattern?.includes('\\d{4}-\\d{2}-\\d{2}')) return new Date().toISOString().slice(0, 10);
  if (schema.pattern === '^\\d{6}$') return '123456';
  const named = byFieldName(field);
  if (named) return String(named());
  const length = Math.max(schema.minLength ?? 1, Math.min(schema.maxLength ?? 24, 8 + random.int(16)));
  return Array.from({ length }, () => random.pick('abcdefghijklmnopqrstuvwxyz'.split(''))).join('');
}

function validNumber(random: Random, schema: JsonSchema, integer: boolean): number {
  const low = schema.minimum ?? (schema.exclusiveMinimum === undefined ? 0 : schema.exclusiveMinimum + 1);
  const high = Math.min(schema.maximum ?? low + 100, low + 100);
  const value = low + random.next() * (high - low);
  return integer ? Math.floor(value) : Math.round(value * 100) / 100;
}

/** A value `schema` accepts (as far as JSON Schema can say); `field` names it, for hints. */
export function validValue(random: Random, schema: JsonSchema, hints: ValueHints, field = ''): Json {
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return random.pick(schema.enum);
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) return validValue(random, branches.find((branch) => branch.type !== 'null') ?? branches[0]!, hints, field);
  const type = Array.isArray(schema.type) ? schema.type.find((name) => name !== 'null') : schema.type;
  const named = byFieldName(field);
  if (named && type !== 'object' && type !== 'array') return named();
  switch (type) {
    case 'string':
      return validString(random, schema, field, hints);
    case 'integer':
      return validNumber(random, schema, true);
    case 'number':
      return validNumber(random, schema, false);
    case 'boolean':
      return random.chance(0.5);
    case 'array': {
      const count = Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? 2, 1 + random.int(2)));
      return Array.from({ length: count }, () => validValue(random, schema.items ?? {}, hints, field));
    }
    case 'object': {
      const object: Record<string, Json> = {};
      for (const [name, property] of Object.entries(schema.properties ?? {})) {
        if ((schema.required ?? []).includes(name) || random.chance(0.7)) object[name] = validValue(random, property, hints, name);
      }
      if (!schema.properties && typeof schema.additionalProperties === 'object') {
        object.field = validValue(random, schema.additionalProperties.type ? schema.additionalProperties : { type: 'string' }, hints);
      }
      return object;
    }
    default:
      return 'value';
  }
}

// ─── echoes ─────────────────────────────────────────────────────────────────

const ECHO_WINDOW = 64;

/**
 * The longest run of `header` (at least 64 characters long) found in `sent`, in
 * characters; 0 when none. Windows of 64 at every 32nd character find any common run of
 * 96 or more; each is then grown both ways.
 */
export function echoedLength(header: string, sent: string): number {
  let longest = 0;
  for (let start = 0; start + ECHO_WINDOW <= header.length; start += ECHO_WINDOW / 2) {
    const at = sent.indexOf(header.slice(start, start + ECHO_WINDOW));
    if (at === -1) continue;
    let before = 0;
    while (start - before > 0 && at - before > 0 && header[start - before - 1] === sent[at - before - 1]) before++;
    let after = ECHO_WINDOW;
    while (start + after < header.length && header[start + after] === sent[at + after]) after++;
    longest = Math.max(longest, before + after);
  }
  return longest;
}
