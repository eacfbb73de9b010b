/** The User-Agent of every request the tool makes (JWKS, Names and Roles, the Launch API). */
export const USER_AGENT = 'proctor-lti/0.1 (+https://github.com/proctor-lti/proctor-lti)';
