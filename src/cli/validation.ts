// The checks the admin console applies, for the CLI: one implementation for both.
import type { Queryable } from '../db/types.js';
import { describeProblems } from '../institution/validation.js';
import { checkPlatformExists, type FieldProblem } from '../lti/platform-input.js';
import { registeredPlatforms } from '../lti/store/registered-platforms.js';

export { checkPlatformExists, checkPlatformInput } from '../lti/platform-input.js';
export { checkExtensionAllowlist, checkInstitutionSettings, describeProblems } from '../institution/validation.js';

/** Input refused by a shared check: the CLI prints the console's messages and exits with 1. */
export class RefusedInputError extends Error {
  override readonly name = 'RefusedInputError';
  constructor(readonly problems: readonly FieldProblem[]) {
    super(`nothing was changed:\n${describeProblems(problems)}`);
  }
}

/** Refuses a change for a platform (issuer + client id) that is not registered, as the console does. */
export async function requireRegisteredPlatform(db: Queryable, issuer: string, clientId: string): Promise<void> {
  const problem = checkPlatformExists(await registeredPlatforms(db), issuer, clientId);
  if (problem) throw new RefusedInputError([problem]);
}
