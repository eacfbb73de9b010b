/**
 * What the tool accepts as an institution logo (Launch API branding.logo_url: "an image, CORS-safe, rendered
 * 32px high"): PNG, JPEG, WebP by their signatures, and SVG after sanitising (svg.ts). Pure.
 */

export const LOGO_MAX_BYTES = 512 * 1024;

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
  return type;
}
