import { VERSION } from './version.js';

/** The User-Agent of every request the tool makes (JWKS, Names and Roles, the Launch API). */
export const USER_AGENT = `proctor-lti/${VERSION} (+https://github.com/proctor-lti/proctor-lti)`;
