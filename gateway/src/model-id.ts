// What a model id may be, wherever one comes from (a caller's body, key settings, a
// provider's answer): 1 to 256 printable ASCII characters, no spaces. Only such ids reach
// a header (x-spendgate-model), a provider's URL or a usage event.

export const MODEL_ID_MAX_LENGTH = 256;

/** The characters a model id may hold. */
export const MODEL_ID_CHARACTERS = /^[\x21-\x7e]*$/;

/** `value` when it is a model id, else undefined. */
export function modelId(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 && value.length <= MODEL_ID_MAX_LENGTH && MODEL_ID_CHARACTERS.test(value) ? value : undefined;
}
