import { ValidationError } from '@spendgate/core';
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, nestsDeeperThan, parseJsonBody } from './json-body.ts';

const bytes = (text: string) => Buffer.from(text);

describe('JSON nesting', () => {
  it('counts objects and arrays, whichever opens', () => {
    expect(nestsDeeperThan(bytes('[[1]]'), 1)).toBe(true);
    expect(nestsDeeperThan(bytes('[[1]]'), 2)).toBe(false);
    expect(nestsDeeperThan(bytes('{"a":[{"b":1}],"c":[]}'), 2)).toBe(true);
    expect(nestsDeeperThan(bytes('{"a":[{"b":1}],"c":[]}'), 3)).toBe(false);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    expect(nestsDeeperThan(bytes('["[[[[", "{{{{"]'), 1)).toBe(false);
    expect(nestsDeeperThan(bytes(String.raw`["\"[[[[", "x"]`), 1)).toBe(false);
    expect(nestsDeeperThan(bytes(String.raw`["a \\\"[[[[", 1]`), 1)).toBe(false);
  });

  it('counts brackets after a string that ends in an escaped backslash', () => {
    expect(nestsDeeperThan(bytes(String.raw`["\\", [[1]]]`), 2)).toBe(true);
    expect(nestsDeeperThan(bytes(String.raw`["\\", [[1]]]`), 3)).toBe(false);
  });

  it('reads UTF-8 text between brackets as text', () => {
    expect(nestsDeeperThan(bytes('["ünïcödé 🙂 [", {"ключ": "[{"}]'), 2)).toBe(false);
  });
});

describe('parseJsonBody', () => {
  const refusal = (text: string) => {
    try {
      parseJsonBody(bytes(text));
    } catch (error) {
      return error as ValidationError;
    }
    throw new Error(`parsed: ${text}`);
  };

  it(`parses JSON nested up to ${MAX_JSON_DEPTH} deep`, () => {
    const deepest = `${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}`;
    expect(JSON.stringify(parseJsonBody(bytes(deepest)))).toBe(deepest);
  });

  it('refuses deeper JSON, malformed JSON and prototype keys with a 400 naming the body', () => {
    for (const text of [`${'['.repeat(100_000)}${']'.repeat(100_000)}`, '{"a":', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{}}}']) {
      const error = refusal(text);
      expect(error).toBeInstanceOf(ValidationError);
      expect(error).toMatchObject({ statusCode: 400, field: 'body' });
    }
    expect(refusal(`[${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}]`).message).toBe('body: JSON may nest at most 64 levels deep');
  });
});
