// What a model id may be, wherever one comes from (a caller's body, key settings, a
// provider's answer): 1 to 256 printable ASCII characters, no spaces. Only such ids reach
// a header (x-spendgate-model), a provider's URL or a usage event. Both planes check
// them with these.
import { z } from 'zod';

export const MODEL_ID_MAX_LENGTH = 256;

/** The characters a model id may hold. */
export const MODEL_ID_CHARACTERS = /^[\x21-\x7e]*$/;

/** `value` when it is a model id, else undefined. */
export function modelId(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 && value.length <= MODEL_ID_MAX_LENGTH && MODEL_ID_CHARACTERS.test(value) ? value : undefined;
}

/** A model id in a request body or a setting, as a zod schema with the field's messages. */
export const ModelName = z
  .string({ error: 'must be a model id' })
  .min(1, 'must name a model')
  .max(MODEL_ID_MAX_LENGTH, `must be at most ${MODEL_ID_MAX_LENGTH} characters`)
  .regex(MODEL_ID_CHARACTERS, 'must be printable ASCII without spaces or control characters');
