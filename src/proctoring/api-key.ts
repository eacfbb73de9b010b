import { createHash } from 'node:crypto';
import type { ProctoringCredentials } from '../config.js';

export type { ProctoringCredentials };

/** The `api_key` header value (spec: Authentication, rule 2): consumer_key + lowercase hex MD5(secret). */
export function apiKeyFor(credentials: ProctoringCredentials): string {
  if ('apiKey' in credentials) return credentials.apiKey;
  return credentials.consumerKey + createHash('md5').update(credentials.secret, 'utf8').digest('hex');
}
