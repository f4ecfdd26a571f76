/**
 * An uploaded picture made into an avatar the API accepts: cropped to its centre square,
 * drawn at 160 × 160 px and encoded as a base64 data URL (WebP, else JPEG) within
 * core's AVATAR_DATA_URL_MAX_LENGTH — lowering the quality until it fits.
 *
 * @example
 *   const avatar = await avatarFromFile(input.files[0]); // 'data:image/webp;base64,…'
 */
import { AVATAR_DATA_URL_MAX_LENGTH, avatarProblem } from '@spendgate/core';

export const AVATAR_PIXELS = 160;
export const ACCEPTED_IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
/** Larger files are refused before they are decoded. */
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;

const ENCODINGS: [type: string, quality: number][] = [
  ['image/webp', 0.85],
  ['image/jpeg', 0.85],
  ['image/webp', 0.6],
  ['image/jpeg', 0.6],
];

export class AvatarImageError extends Error {}

export async function avatarFromFile(file: File): Promise<string> {
  if (!(ACCEPTED_IMAGE_TYPES as readonly string[]).includes(file.type)) throw new AvatarImageError('Choose a PNG, JPEG, GIF or WebP image');
  if (file.size > MAX_UPLOAD_BYTES) throw new AvatarImageError('Choose an image of at most 10 MB');
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(file);
  } catch {
    throw new AvatarImageError('This file could not be read as an image');
  }
  const side = Math.min(bitmap.width, bitmap.height);
  const canvas = document.createElement('canvas');
  canvas.width = AVATAR_PIXELS;
  canvas.height = AVATAR_PIXELS;
  const context = canvas.getContext('2d');
  if (!context) throw new AvatarImageError('This browser cannot resize images: use an image URL instead');
  context.drawImage(bitmap, (bitmap.width - side) / 2, (bitmap.height - side) / 2, side, side, 0, 0, AVATAR_PIXELS, AVATAR_PIXELS);
  bitmap.close();
  for (const [type, quality] of ENCODINGS) {
    const url = canvas.toDataURL(type, quality);
    // A browser that cannot encode `type` answers PNG instead: checked like any other.
    if (url.length <= AVATAR_DATA_URL_MAX_LENGTH && avatarProblem(url) === undefined) return url;
  }
  throw new AvatarImageError('This image cannot be made small enough: choose a simpler one or use an image URL');
}
