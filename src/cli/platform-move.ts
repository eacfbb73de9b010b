import { InvalidArgumentError, type Command } from 'commander';
import { recordChange } from './audit.js';
import type { WithDatabase } from './context.js';
import { out } from './io.js';
import type { MovePlan } from '../platforms/move.js';

const held = (plan: MovePlan) => `${plan.accommodations} accommodation(s), ${plan.attempts} attempt(s) (${plan.attemptsInProgress} in progress)`;

/** What happens to the students' pseudonymous ids, and what is kept under them. */
function studentLine(plan: MovePlan): string {
  if (plan.studentIds === 'not-kept') return `students get new ids: the new issuer already has exams with settings or attempts of its own; ${held(plan)} stay under the old ids`;
  return `students keep their ids (${plan.studentIds === 'kept' ? "the new issuer's are derived as the old one's" : 'same issuer'}): ${held(plan)} follow them`;
}

const mapping = (value: string, previous: Record<string, string>) => {
  const [, from, to] = /^([^=]+)=(.+)$/.exec(value) ?? [];
  if (from === undefined || to === undefined) throw new InvalidArgumentError('expected OLD=NEW, e.g. --deployment 1=4');
  return { ...previous, [from]: to };
};

/** `platform move`: everything of an old registration (issuer + client id) to a new one, all or nothing. */
export function addPlatformMoveCommand(platform: Command, withDatabase: WithDatabase): void {
  platform
    .command('move')
    .description("move a platform's exams, courses, institution settings, logo and proctoring account to its new registration (new issuer or client id), all or nothing")
    .requiredOption('--from-issuer <url>', 'the old issuer')
    .requiredOption('--from-client-id <id>', 'the old client id')
    .requiredOption('--to-issuer <url>', 'the new issuer (registered already)')
    .requiredOption('--to-client-id <id>', 'the new client id')
    .option('--deployment <old=new>', 'which deployment id of the new registration takes an old one (repeat for several)', mapping, {})
    .option('--dry-run', 'say what would move, and change nothing')
    .action(async (options: { fromIssuer: string; fromClientId: string; toIssuer: string; toClientId: string; deployment: Record<string, string>; dryRun?: boolean }) => {
      await withDatabase(async ({ db, config }) => {
        const [{ movePlatform, moveAuditEntry }, { openPseudonymKeys }] = await Promise.all([import('../platforms/move.js'), import('../lti/pseudonym-keys.js')]);
        const from = { issuer: options.fromIssuer, clientId: options.fromClientId };
        const to = { issuer: options.toIssuer, clientId: options.toClientId };
        const plan = await movePlatform(db, { from, to, deployments: options.deployment }, { pseudonymSecret: await openPseudonymKeys(db, config), dryRun: options.dryRun });
        const lines = [
          `${plan.exams} exam(s)${plan.placeholdersReplaced > 0 ? `, replacing ${plan.placeholdersReplaced} empty exam(s) the new registration had created` : ''}`,
          `${plan.courses} course(s)`,
          `deployments ${Object.entries(plan.deployments).map(([a, b]) => `${a} → ${b}`).join(', ') || '(none)'}`,
          `institution settings: ${plan.institutionSettings ? 'moved' : 'none saved'}; logo: ${plan.logo ? 'moved (its URL changes with the platform)' : 'none'}`,
          `proctoring account: ${plan.proctoringAccount ?? 'default'}`,
          studentLine(plan),
          ...plan.addressRewrites.flatMap((exam) => exam.rewrites.map((r) => `address of "${exam.title}" (${r.field}): ${r.before} → ${r.after}`)),
          ...plan.addressesToCheck.map((exam) => `needs a look: "${exam.title}" (${exam.address ?? `page pattern ${exam.field ?? ''}`}): left as it is`),
        ];
        const fromLabel = `${from.issuer} (client id ${from.clientId})`;
        const toLabel = `${to.issuer} (client id ${to.clientId})`;
        if (options.dryRun) {
          out(`Would move from ${fromLabel} to ${toLabel} (nothing changed):\n  ${lines.join('\n  ')}`);
          return;
        }
        await recordChange(db, moveAuditEntry(from, to, plan));
        out(`Moved from ${fromLabel} to ${toLabel}:\n  ${lines.join('\n  ')}`);
        out(`The old registration is still registered: remove it when the LMS no longer uses it (proctor-lti platform remove --issuer ${from.issuer} --client-id ${from.clientId}).`);
      });
    });
}
