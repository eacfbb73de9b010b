import { imageSize } from 'image-size';

/**
 * What the tool accepts as an institution logo (Launch API branding.logo_url: "an image, CORS-safe, rendered
 * 32px high"): PNG, JPEG, WebP by their signatures, and SVG after sanitising (svg.ts). Pure.
 */

export const LOGO_MAX_BYTES = 512 * 1024;
/**
 * Largest width and height of a PNG, JPEG or WebP logo. It is shown 32 px high; a small file can declare
 * 60000×60000 pixels and cost every browser (and any later processing) gigabytes to decode.
 */
export const LOGO_MAX_PIXELS_PER_SIDE = 4096;

export type LogoContentType = 'image/png' | 'image/jpeg' | 'image/webp' | 'image/svg+xml';

export class LogoError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LogoError';
  }
}

const startsWith = (bytes: Uint8Array, signature: readonly number[], offset = 0) =>
  bytes.length >= offset + signature.length && signature.every((byte, index) => bytes[offset + index] === byte);

const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

/** The image type of `bytes` from its content (never from a file name or a declared type). */
export function detectLogoType(bytes: Uint8Array): LogoContentType | undefined {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8)) return 'image/webp';
  if (looksLikeSvg(bytes)) return 'image/svg+xml';
  return undefined;
}

/** An SVG document: optional BOM, XML declaration, comments and whitespace, then an `<svg` root. */
export function looksLikeSvg(bytes: Uint8Array): boolean {
  const head = new TextDecoder('utf-8', { fatal: false }).decode(bytes.subarray(0, 4096)).replace(/^\uFEFF/, '');
  const rest = head.replace(/^\s*(<\?xml[^>]*\?>\s*)?((<!--[\s\S]*?-->)\s*)*/, '');
  return /^<svg[\s>/]/i.test(rest);
}

/** Checks size and type; SVG still has to go through sanitizeSvg before it is stored. */
export function inspectLogo(bytes: Uint8Array): LogoContentType {
  if (bytes.length === 0) throw new LogoError('the logo file is empty');
  if (bytes.length > LOGO_MAX_BYTES) throw new LogoError(`the logo is ${bytes.length} bytes; at most ${LOGO_MAX_BYTES} bytes (${LOGO_MAX_BYTES / 1024} KiB) are accepted`);
  const type = detectLogoType(bytes);
  if (!type) throw new LogoError('the logo must be a PNG, JPEG, WebP or SVG image');
  if (type !== 'image/svg+xml') checkDimensions(bytes);
  return type;
}

/** Reads the dimensions from the image's header (image-size parses headers only, never pixels). */
function checkDimensions(bytes: Uint8Array): void {
  let width: number | undefined;
  let height: number | undefined;
  try {
    ({ width, height } = imageSize(bytes));
  } catch {
    throw new LogoError('the logo image is damaged: its size cannot be read');
  }
  if (!width || !height) throw new LogoError('the logo image is damaged: its size cannot be read');
  if (width > LOGO_MAX_PIXELS_PER_SIDE || height > LOGO_MAX_PIXELS_PER_SIDE) {
    throw new LogoError(`the logo is ${width}×${height} pixels; at most ${LOGO_MAX_PIXELS_PER_SIDE}×${LOGO_MAX_PIXELS_PER_SIDE} are accepted (it is shown 32 pixels high)`);
  }
}
