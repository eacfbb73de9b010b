// The ids sent to the proctoring service: pseudonymous for people, stable for exams and courses.
// Changing a label or the encoding below changes every id already stored upstream: never do it.
import { createHash, createHmac } from 'node:crypto';

type Purpose = 'user_id' | 'exam_tag' | 'section_id';

/**
 * The installation's pseudonym key, or its versions (lti/pseudonym-keys.ts): an issuer's ids are always
 * derived with the version that issuer is bound to, so a new key changes no existing id.
 */
export type PseudonymSecret = string | PseudonymKeyring;

export interface PseudonymKeyring {
  /** The key `issuer`'s ids are derived with: its bound version, else the newest. */
  secretFor(issuer: string): string;
  /**
   * The issuer whose ids `issuer`'s are derived as: itself, or, for a platform moved to a new issuer, the old
   * one (platforms/move.ts), so a person, an exam and a course keep their ids across the move.
   */
  namespaceOf(issuer: string): string;
  /** Reads the keys and namespaces again now (after this process changed them: a platform move). */
  reload(): Promise<void>;
  /**
   * Makes sure `issuer`'s ids are derived as the database says now, reading everything again if another
   * process changed it (a move or a rotation whose change notice has not arrived yet): once per request, before
   * the request derives anything.
   */
  confirm(issuer: string): Promise<void>;
  /** The newest key (signs return links). */
  readonly newest: string;
  /** Every kept key, newest first (return links signed with any of them verify). */
  readonly all: readonly string[];
}

/**
 * HMAC-SHA256 keyed by the installation's secret over a JSON array: the purpose label separates the
 * kinds of id, and JSON quoting keeps ('a', 'bc') apart from ('ab', 'c'). JSON.stringify escapes lone
 * surrogates, so two different strings never encode to the same bytes (UTF-8 would turn both '\uD800'
 * and '\uFFFD' into EF BF BD).
 */
function digest(pseudonymSecret: PseudonymSecret, purpose: Purpose, [issuer, ...rest]: readonly [issuer: string, ...rest: string[]]): Buffer {
  const namespace = typeof pseudonymSecret === 'string' ? issuer : pseudonymSecret.namespaceOf(issuer);
  const secret = typeof pseudonymSecret === 'string' ? pseudonymSecret : pseudonymSecret.secretFor(namespace);
  if (secret.length === 0) throw new RangeError('the pseudonym secret is empty');
  return createHmac('sha256', secret).update(JSON.stringify([purpose, namespace, ...rest]), 'utf8').digest();
}

/**
 * The user_id for (issuer, sub): 36 characters shaped like a UUID, version 8 (custom) with the RFC 9562
 * variant, so it matches the Launch API's `^[a-zA-Z0-9-]*$` and its 36-character limit.
 *
 * Keyed, not a UUIDv5: Moodle's `sub` is the sequential numeric user id, so a UUIDv5 of (issuer, sub)
 * could be recomputed by anyone for every user of a site, undoing the pseudonym.
 */
export function deriveUserId(secret: PseudonymSecret, issuer: string, sub: string): string {
  const bytes = digest(secret, 'user_id', [issuer, sub]).subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x80;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** The exam_tag of one resource link: `ex-` and 26 base32 characters (130 bits), never a reserved word. */
export function deriveExamTag(secret: PseudonymSecret, issuer: string, deploymentId: string, resourceLinkId: string): string {
  return `ex-${base32(digest(secret, 'exam_tag', [issuer, deploymentId, resourceLinkId])).slice(0, 26)}`;
}

/** The section_id of one LTI context (course): `sec-` and 26 base32 characters. */
export function deriveSectionId(secret: PseudonymSecret, issuer: string, deploymentId: string, contextId: string): string {
  return `sec-${base32(digest(secret, 'section_id', [issuer, deploymentId, contextId])).slice(0, 26)}`;
}

const BASE32_ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

/** RFC 4648 base32, lower case, without padding. */
function base32(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = ((buffer << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += BASE32_ALPHABET[(buffer >> bits) & 31];
    }
  }
  if (bits > 0) out += BASE32_ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

/** A short, stable, non-reversible name for a platform in public URLs (logo, extension allowlist). */
export function platformKey(issuer: string, clientId: string): string {
  return createHash('sha256').update(JSON.stringify([issuer, clientId]), 'utf8').digest('base64url').slice(0, 22);
}
