import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * How a delivery proves it comes from the proctoring service (as public integrations of the Launch API
 * show): the subscription's `client.key` comes back as `api_key`; otherwise `signature` is the lowercase
 * hex SHA-1 of `nonce + ":" + <data exactly as received> + ":" + secret`, the secret being the account's.
 */
export function deliverySignature(nonce: string, rawData: Uint8Array, secret: string): string {
  return createHash('sha1').update(nonce).update(':').update(rawData).update(':').update(secret).digest('hex');
}

/** What is stored of a subscription's key: its SHA-256, so the key itself is never kept at rest. */
export function keyHash(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** Constant-time comparison of two strings of any length (both are hashed to the same length first). */
export function sameText(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

/** Whether `apiKey` is the key whose hash is stored, in constant time. */
export function keyMatches(apiKey: string, storedHash: string): boolean {
  const received = Buffer.from(keyHash(apiKey), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return received.length === stored.length && timingSafeEqual(received, stored);
}

/** Whether the signature verifies, in constant time; a signature in capitals is read as the same hex. */
export function signatureMatches(signature: string, nonce: string, rawData: Uint8Array, secret: string): boolean {
  if (!/^[0-9a-fA-F]{40}$/.test(signature)) return false;
  return sameText(signature.toLowerCase(), deliverySignature(nonce, rawData, secret));
}
