import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { countTokens, estimateInputTokens, estimatePromptTokens, IMAGE_TOKENS, imagesIn } from './token-estimate.ts';

/** How many turns the event loop took while `work` was under way. */
async function turnsWhile<T>(work: Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let working = true;
  const done = work.finally(() => {
    working = false;
  });
  while (working) {
    await nextTurn();
    turns++;
  }
  return { result: await done, turns };
}

describe('countTokens', () => {
  it('counts text as o200k does, loading tiktoken off the event loop', async () => {
    // The first count loads tiktoken and builds its encoder (~170 ms): the loop keeps turning meanwhile.
    const { result, turns } = await turnsWhile(countTokens('Hello there world'));
    expect(result).toBe(3);
    expect(turns).toBeGreaterThan(1);
    expect(await countTokens('')).toBe(0);
  });

  it('counts a long run without whitespace off the event loop, and bounds it', async () => {
    const { result: tokens, turns } = await turnsWhile(countTokens('a'.repeat(200_000)));
    // Counted in pieces: at least what o200k gives for the whole run (8 letters a token), never more than its bytes.
    expect(tokens).toBeGreaterThanOrEqual(200_000 / 8);
    expect(tokens).toBeLessThanOrEqual(200_000);
    expect(turns).toBeGreaterThan(1);
  });

  it('keeps a surrogate pair whole where a slice ends', async () => {
    // The emoji's two UTF-16 units straddle the 2,048-character slice end: it is counted as one emoji, not two broken halves.
    const before = `${'x '.repeat(1_023)}x`;
    expect(await countTokens(`${before}😀`)).toBe((await countTokens(before)) + (await countTokens('😀')));
  });
});

describe('prompt estimates', () => {
  it('count every message field, the system prompt, tools, and each image as IMAGE_TOKENS', async () => {
    const text = await estimatePromptTokens([{ role: 'user', content: 'Hello there world' }]);
    expect(text).toBe(3 + 3 + 3);
    const withImage = [{ role: 'user', content: [{ type: 'text', text: 'Hello there world' }, { type: 'image_url', image_url: { url: 'https://x/y.png' } }] }];
    expect(await estimatePromptTokens(withImage)).toBe(text + IMAGE_TOKENS);
    expect(imagesIn(withImage)).toBe(1);
    const tools = [{ type: 'function', function: { name: 'lookup_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
    expect(await estimatePromptTokens([{ role: 'user', content: 'Hello there world' }], undefined, tools)).toBeGreaterThan(text + 10);
    const toolCall = [{ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"city":"Paris"}' } }] }];
    expect(await estimatePromptTokens(toolCall)).toBeGreaterThan(3 + 3 + 5);
  });

  it('count embeddings inputs: strings by tiktoken, token arrays by length', async () => {
    expect(await estimateInputTokens('Hello there world')).toBe(3);
    expect(await estimateInputTokens(['Hello there world', [1, 2, 3, 4]])).toBe(7);
  });
});
