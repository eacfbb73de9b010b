import { clearReadCaches, invalidateReadCaches } from '../db/read-cache.js';
import type { Database, Queryable } from '../db/types.js';
import { deriveSectionId, platformKey, type PseudonymSecret } from '../lti/identifiers.js';
import { isRegisteredPlatform } from '../lti/store/registered-platforms.js';
import { addressFieldsOf, rewriteExamAddresses, siteOf, type AddressField, type AddressRewrite } from './addresses.js';

/**
 * Moving a platform: an LMS that changes its address (http → https, a new host name) or is registered again
 * comes back with a new issuer or client id, and everything the tool keeps under the old one — exams, courses,
 * institution settings, logo, proctoring account — would be orphaned. `movePlatform` moves all of it to the new
 * registration in one transaction: all of it, or (on any refusal) nothing.
 *
 * Deployment ids usually change with a new registration too: each deployment id of the old registration maps
 * to one of the new one — given explicitly, or the same id when the new registration has it, or the new
 * registration's only deployment.
 *
 * People keep their pseudonymous ids: they are derived from the issuer and the LMS's user id, which the tool
 * never stores, so old ids cannot be mapped to new ones; instead the new issuer's ids are derived as the old
 * issuer's were (`pseudonym_bindings.derive_as`, read by lti/pseudonym-keys.ts), in the same transaction. What
 * is kept under those ids — accommodations, attempts (and the one in progress, resumed), results, settings
 * history, names from the roster — follows without a row changing. With the deployment id unchanged, exam tags
 * and section ids stay the same too. Quiz addresses and page patterns naming the old LMS site are rewritten to
 * the new one (addresses.ts).
 */
export interface PlatformRef {
  issuer: string;
  clientId: string;
}

export interface MoveRequest {
  from: PlatformRef;
  to: PlatformRef;
  /** Old deployment id → new deployment id. */
  deployments?: Record<string, string>;
}

export interface MovePlan {
  deployments: Record<string, string>;
  exams: number;
  /** Exams the new registration created on its own before the move (no settings): replaced by the originals. */
  placeholdersReplaced: number;
  courses: number;
  institutionSettings: boolean;
  logo: boolean;
  proctoringAccount: string | undefined;
  launchLogRows: number;
  /**
   * The students' pseudonymous ids: `same-issuer` (a new client id of the same issuer: unchanged anyway),
   * `kept` (the new issuer's ids are derived as the old one's), or `not-kept` (the new issuer has students and
   * exams of its own already: its ids cannot change, and the moved exams' students get new ones).
   */
  studentIds: 'same-issuer' | 'kept' | 'not-kept';
  /** What is kept under those ids in the moved exams. */
  accommodations: number;
  attempts: number;
  attemptsInProgress: number;
  /** Each exam whose quiz address or page patterns were rewritten to the new LMS site, with each rewrite. */
  addressRewrites: Array<{ examId: string; title: string; rewrites: AddressRewrite[] }>;
  /** Exams whose addresses were left as they were: they name a third site, or a pattern could not be rewritten safely. */
  addressesToCheck: Array<{ examId: string; title: string; address?: string; field?: AddressField }>;
}

export class MoveRefusedError extends Error {
  override readonly name = 'MoveRefusedError';
  constructor(readonly problems: string[]) {
    super(`nothing was moved:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

const same = (a: PlatformRef, b: PlatformRef) => a.issuer === b.issuer && a.clientId === b.clientId;

class DryRun extends Error {
  constructor(readonly plan: MovePlan) {
    super('dry run');
  }
}

/**
 * Moves everything of `from` to `to`, or throws MoveRefusedError having changed nothing. `dryRun` does the
 * whole move and rolls it back: the plan it returns is exactly what a real move would do.
 */
export async function movePlatform(db: Database, request: MoveRequest, options: { pseudonymSecret: PseudonymSecret; dryRun?: boolean }): Promise<MovePlan> {
  let plan: MovePlan;
  try {
    plan = await db.transaction(async (tx) => {
      const planned = await moveIn(tx, request, options.pseudonymSecret);
      if (options.dryRun) throw new DryRun(planned);
      return planned;
    });
  } catch (error) {
    if (error instanceof DryRun) return error.plan;
    throw error;
  } finally {
    // The move rewrote exams, settings, logos and account assignments with SQL: the stores' short-lived reads go.
    clearReadCaches(db);
    invalidateReadCaches();
  }
  // This process derives the new issuer's ids as the old one's from its next launch on (other processes once
  // the change notice of pseudonym_bindings arrives).
  if (plan.studentIds === 'kept' && typeof options.pseudonymSecret !== 'string') await options.pseudonymSecret.reload();
  return plan;
}

async function moveIn(tx: Queryable, { from, to, deployments: given = {} }: MoveRequest, secret: PseudonymSecret): Promise<MovePlan> {
  const problems: string[] = [];
  if (same(from, to)) throw new MoveRefusedError(['the old and the new registration are the same']);
  if (!(await isRegisteredPlatform(tx, to.issuer, to.clientId))) {
    problems.push(`the new registration ${to.issuer} (client id ${to.clientId}) is not registered: register it first (platform add, or dynamic registration)`);
  }

  const { old: oldDeployments, new: newDeployments } = await moveDeployments(tx, from, to);
  const mapping: Record<string, string> = {};
  for (const [old, next] of Object.entries(given)) {
    if (!oldDeployments.includes(old)) problems.push(`the old registration has no deployment id '${old}' (it has: ${oldDeployments.join(', ') || 'none'})`);
    if (!newDeployments.includes(next)) problems.push(`the new registration has no deployment id '${next}': add it to the new registration first (it has: ${newDeployments.join(', ') || 'none'})`);
  }
  for (const old of oldDeployments) {
    const next = given[old] ?? (newDeployments.includes(old) ? old : newDeployments.length === 1 ? newDeployments[0] : undefined);
    if (next === undefined) {
      problems.push(`say which deployment of the new registration takes the old deployment '${old}' (e.g. --deployment ${old}=NEW; the new one has: ${newDeployments.join(', ') || 'none'})`);
    } else {
      mapping[old] = next;
    }
  }

  // Exams the new registration already has under the same key: placeholders (never configured) give way,
  // configured ones are a conflict the administrator must resolve first.
  const collisions = await tx.query<{ id: string; title: string; configured: boolean; context_id: string; resource_link_id: string; old_deployment: string }>(
    `SELECT n.id, n.title, n.settings IS NOT NULL AS configured, n.context_id, n.resource_link_id, o.deployment_id AS old_deployment
     FROM exams o JOIN exams n ON n.issuer = $3 AND n.client_id = $4 AND n.context_id = o.context_id AND n.resource_link_id = o.resource_link_id
       AND n.deployment_id = ($5::jsonb ->> o.deployment_id)
     WHERE o.issuer = $1 AND o.client_id = $2`,
    [from.issuer, from.clientId, to.issuer, to.clientId, JSON.stringify(mapping)],
  );
  for (const exam of collisions.rows.filter((row) => row.configured)) {
    problems.push(`the new registration already has a configured exam "${exam.title}" (${exam.id}) for course ${exam.context_id}, link ${exam.resource_link_id}: export it and delete it first, or keep the old one`);
  }
  if (problems.length > 0) throw new MoveRefusedError(problems);

  const placeholders = collisions.rows.map((row) => row.id);
  if (placeholders.length > 0) await tx.query('DELETE FROM exams WHERE id = ANY($1::uuid[])', [placeholders]);
  const mappingJson = JSON.stringify(mapping);
  const identity = await keepStudentIds(tx, from, to);
  const held = await tx.query<{ accommodations: string; attempts: string; in_progress: string }>(
    `SELECT (SELECT count(*) FROM exam_accommodations a JOIN exams e ON e.id = a.exam_id WHERE e.issuer = $1 AND e.client_id = $2) AS accommodations,
            (SELECT count(*) FROM attempts a JOIN exams e ON e.id = a.exam_id WHERE e.issuer = $1 AND e.client_id = $2) AS attempts,
            (SELECT count(*) FROM attempts a JOIN exams e ON e.id = a.exam_id WHERE e.issuer = $1 AND e.client_id = $2 AND a.status = 'started') AS in_progress`,
    [from.issuer, from.clientId],
  );
  const addresses = await rewriteAddresses(tx, from, to);

  const exams = await tx.query<{ id: string }>(
    `UPDATE exams SET issuer = $3, client_id = $4, deployment_id = $5::jsonb ->> deployment_id, updated_at = now()
     WHERE issuer = $1 AND client_id = $2 RETURNING id`,
    [from.issuer, from.clientId, to.issuer, to.clientId, mappingJson],
  );
  const examIds = exams.rows.map((row) => row.id);
  const launchLog = from.issuer === to.issuer ? { rowCount: 0 } : await tx.query('UPDATE launch_log SET issuer = $2 WHERE issuer = $1 AND exam_id = ANY($3::uuid[])', [from.issuer, to.issuer, examIds]);

  const courses = await moveContexts(tx, from, to, mapping, secret, identity.derivedAs);

  const settings = await moveKeyed(
    tx,
    'institution_settings',
    'DELETE FROM institution_settings WHERE issuer = $1 AND client_id = $2',
    'UPDATE institution_settings SET issuer = $3, client_id = $4, platform_key = $5, updated_at = now() WHERE issuer = $1 AND client_id = $2',
    from,
    to,
  );
  // The logo's public URL names the platform key (a hash of issuer and client id): it moves to the new key.
  const logo = await moveKeyed(
    tx,
    'institution_logos',
    'DELETE FROM institution_logos WHERE issuer = $1 AND client_id = $2',
    'UPDATE institution_logos SET issuer = $3, client_id = $4, platform_key = $5, updated_at = now() WHERE issuer = $1 AND client_id = $2',
    from,
    to,
  );
  const account = await tx.query<{ account_id: string }>('SELECT account_id FROM platform_proctoring_accounts WHERE issuer = $1 AND client_id = $2', [from.issuer, from.clientId]);
  if (account.rows[0]) {
    await tx.query('DELETE FROM platform_proctoring_accounts WHERE issuer = $1 AND client_id = $2', [to.issuer, to.clientId]);
    await tx.query('UPDATE platform_proctoring_accounts SET issuer = $3, client_id = $4, updated_at = now() WHERE issuer = $1 AND client_id = $2', [from.issuer, from.clientId, to.issuer, to.clientId]);
  }
  await moveRolesSeen(tx, from, to);
  // Launches of the new address refused before it was registered, listed as "looks like … at a new address": moved now.
  await tx.query('DELETE FROM lti_refused_registrations WHERE issuer = $1 AND looks_like_issuer IS NOT NULL', [to.issuer]);

  return {
    deployments: mapping,
    exams: examIds.length,
    placeholdersReplaced: placeholders.length,
    courses,
    institutionSettings: settings,
    logo,
    proctoringAccount: account.rows[0]?.account_id,
    launchLogRows: launchLog.rowCount,
    studentIds: identity.studentIds,
    accommodations: Number(held.rows[0]?.accommodations ?? 0),
    attempts: Number(held.rows[0]?.attempts ?? 0),
    attemptsInProgress: Number(held.rows[0]?.in_progress ?? 0),
    addressRewrites: addresses.rewritten,
    addressesToCheck: addresses.toCheck,
  };
}

/**
 * The new issuer derives its ids as the old one did (the old one's own namespace, when it was moved itself
 * before): both issuers are bound to the key version those ids were derived with, so a later key rotation
 * changes none of them. Refused (`not-kept`) when the new issuer already has exams with settings or attempts
 * of its own: their students' ids must not change.
 */
async function keepStudentIds(tx: Queryable, from: PlatformRef, to: PlatformRef): Promise<{ studentIds: MovePlan['studentIds']; derivedAs: string }> {
  if (from.issuer === to.issuer) return { studentIds: 'same-issuer', derivedAs: to.issuer };
  const bindings = await tx.query<{ issuer: string; derive_as: string | null }>('SELECT issuer, derive_as FROM pseudonym_bindings WHERE issuer = ANY($1::text[]) FOR UPDATE', [
    [from.issuer, to.issuer],
  ]);
  const namespace = bindings.rows.find((row) => row.issuer === from.issuer)?.derive_as ?? from.issuer;
  if (namespace === (bindings.rows.find((row) => row.issuer === to.issuer)?.derive_as ?? to.issuer)) return { studentIds: 'kept', derivedAs: namespace };
  const own = await tx.query(
    `SELECT 1 FROM exams e WHERE e.issuer = $1 AND (e.settings IS NOT NULL OR EXISTS (SELECT 1 FROM attempts a WHERE a.exam_id = e.id)
       OR EXISTS (SELECT 1 FROM exam_accommodations c WHERE c.exam_id = e.id)) LIMIT 1`,
    [to.issuer],
  );
  if (own.rowCount > 0) return { studentIds: 'not-kept', derivedAs: to.issuer };
  // An issuer without a binding derives with the newest key: the old one is bound to it now.
  await tx.query(
    `INSERT INTO pseudonym_bindings (issuer, version) SELECT $1, max(version) FROM app_secrets WHERE name = 'pseudonyms' HAVING max(version) IS NOT NULL
     ON CONFLICT (issuer) DO NOTHING`,
    [namespace],
  );
  await tx.query(
    `INSERT INTO pseudonym_bindings (issuer, version, derive_as) SELECT $1, version, NULLIF($2, $1) FROM pseudonym_bindings WHERE issuer = $2
     ON CONFLICT (issuer) DO UPDATE SET version = EXCLUDED.version, derive_as = EXCLUDED.derive_as, bound_at = now()`,
    [to.issuer, namespace],
  );
  return { studentIds: 'kept', derivedAs: namespace };
}

/** Rewrites the quiz addresses and page patterns of the old registration's exams that name the old LMS site. */
async function rewriteAddresses(tx: Queryable, from: PlatformRef, to: PlatformRef): Promise<{ rewritten: MovePlan['addressRewrites']; toCheck: MovePlan['addressesToCheck'] }> {
  const rewritten: MovePlan['addressRewrites'] = [];
  const toCheck: MovePlan['addressesToCheck'] = [];
  const oldSite = siteOf(from.issuer);
  const newSite = siteOf(to.issuer);
  if (!oldSite || !newSite) return { rewritten, toCheck };
  const { rows } = await tx.query<{ id: string; title: string; settings: unknown }>(
    'SELECT id, title, settings FROM exams WHERE issuer = $1 AND client_id = $2 AND settings IS NOT NULL ORDER BY title, id FOR UPDATE',
    [from.issuer, from.clientId],
  );
  for (const exam of rows) {
    const outcome = rewriteExamAddresses(addressFieldsOf(exam.settings), oldSite, newSite);
    if (outcome.kind === 'needs-look') toCheck.push({ examId: exam.id, title: exam.title, address: outcome.address, field: outcome.field });
    if (outcome.kind !== 'rewritten') continue;
    rewritten.push({ examId: exam.id, title: exam.title, rewrites: outcome.rewrites });
    for (const { field, after } of outcome.rewrites) {
      await tx.query('UPDATE exams SET settings = jsonb_set(settings, $2::text[], to_jsonb($3::text)) WHERE id = $1', [exam.id, field.split('.'), after]);
    }
    // The exam's change history says what changed and why (no person: the move did it).
    await tx.query(`INSERT INTO exam_settings_changes (exam_id, user_id, source, changes) VALUES ($1, NULL, 'platform-move', $2::jsonb)`, [
      exam.id,
      JSON.stringify(outcome.rewrites.map(({ field, before, after }) => ({ path: field, before, after }))),
    ]);
  }
  return { rewritten, toCheck };
}

/** The deployment ids a move maps: those the old registration's exams and courses use, and the new registration's. */
export async function moveDeployments(db: Queryable, from: PlatformRef, to: PlatformRef): Promise<{ old: string[]; new: string[] }> {
  return {
    old: await distinct(
      db,
      `SELECT deployment_id FROM exams WHERE issuer = $1 AND client_id = $2
       UNION SELECT deployment_id FROM lti_contexts WHERE issuer = $1 AND client_id = $2
       UNION SELECT deployment_id FROM lti_deployments WHERE issuer = $1 AND client_id = $2`,
      from,
    ),
    new: await distinct(db, 'SELECT deployment_id FROM lti_deployments WHERE issuer = $1 AND client_id = $2', to),
  };
}

/** The audit entry of a move (console and CLI alike): counts and the deployment mapping, old → new. */
export function moveAuditEntry(from: PlatformRef, to: PlatformRef, plan: MovePlan) {
  return {
    action: 'platform.move',
    target: `${from.issuer} (client id ${from.clientId}) → ${to.issuer} (client id ${to.clientId})`,
    changes: [
      { field: 'issuer', old: from.issuer, new: to.issuer },
      { field: 'clientId', old: from.clientId, new: to.clientId },
      { field: 'exams', new: String(plan.exams) },
      { field: 'courses', new: String(plan.courses) },
      { field: 'deployments', new: JSON.stringify(plan.deployments) },
      { field: 'studentIds', new: plan.studentIds },
      { field: 'addressesRewritten', new: String(plan.addressRewrites.length) },
      { field: 'addressesToCheck', new: String(plan.addressesToCheck.length) },
    ],
  };
}

async function distinct(tx: Queryable, sql: string, platform: PlatformRef): Promise<string[]> {
  const { rows } = await tx.query<{ deployment_id: string }>(sql, [platform.issuer, platform.clientId]);
  return [...new Set(rows.map((row) => row.deployment_id))].sort();
}

/** Moves a platform's one row of `table`, replacing the new registration's; false when the old one had none. */
async function moveKeyed(tx: Queryable, table: string, deleteSql: string, updateSql: string, from: PlatformRef, to: PlatformRef): Promise<boolean> {
  const has = await tx.query(`SELECT 1 FROM ${table} WHERE issuer = $1 AND client_id = $2`, [from.issuer, from.clientId]);
  if (has.rowCount === 0) return false;
  await tx.query(deleteSql, [to.issuer, to.clientId]);
  await tx.query(updateSql, [from.issuer, from.clientId, to.issuer, to.clientId, platformKey(to.issuer, to.clientId)]);
  return true;
}

/**
 * Courses: the section_id of a course is derived from issuer and deployment id, so it is derived again. A course
 * the new registration has already seen keeps its newer row (and roster state); the old row goes.
 */
async function moveContexts(tx: Queryable, from: PlatformRef, to: PlatformRef, mapping: Record<string, string>, secret: PseudonymSecret, derivedAs: string): Promise<number> {
  if (derivedAs !== to.issuer && from.issuer !== to.issuer) {
    // Courses the new issuer launched before the move were recorded under ids of its own namespace: derived
    // again as its launches now derive them.
    const own = await tx.query<{ section_id: string; deployment_id: string; context_id: string }>(
      'SELECT section_id, deployment_id, context_id FROM lti_contexts WHERE issuer = $1 FOR UPDATE',
      [to.issuer],
    );
    for (const row of own.rows) {
      const sectionId = deriveSectionId(secret, derivedAs, row.deployment_id, row.context_id);
      if (sectionId === row.section_id) continue;
      const taken = await tx.query('SELECT 1 FROM lti_contexts WHERE section_id = $1', [sectionId]);
      if (taken.rowCount > 0) await tx.query('DELETE FROM lti_contexts WHERE section_id = $1', [row.section_id]);
      else await tx.query('UPDATE lti_contexts SET section_id = $2 WHERE section_id = $1', [row.section_id, sectionId]);
    }
  }
  const { rows } = await tx.query<{ section_id: string; deployment_id: string; context_id: string }>(
    'SELECT section_id, deployment_id, context_id FROM lti_contexts WHERE issuer = $1 AND client_id = $2 FOR UPDATE',
    [from.issuer, from.clientId],
  );
  for (const row of rows) {
    const deploymentId = mapping[row.deployment_id] ?? row.deployment_id;
    // Derived as the new issuer's launches will derive it (as the old issuer when its ids are kept).
    const sectionId = deriveSectionId(secret, derivedAs, deploymentId, row.context_id);
    const taken = await tx.query(
      'SELECT 1 FROM lti_contexts WHERE section_id <> $6 AND (section_id = $1 OR (issuer = $2 AND client_id = $3 AND deployment_id = $4 AND context_id = $5))',
      [sectionId, to.issuer, to.clientId, deploymentId, row.context_id, row.section_id],
    );
    if (taken.rowCount > 0) {
      await tx.query('DELETE FROM lti_contexts WHERE section_id = $1', [row.section_id]);
      continue;
    }
    await tx.query('UPDATE lti_contexts SET section_id = $2, issuer = $3, client_id = $4, deployment_id = $5 WHERE section_id = $1', [
      row.section_id,
      sectionId,
      to.issuer,
      to.clientId,
      deploymentId,
    ]);
  }
  return rows.length;
}

/** The LMS roles a platform has sent (to choose proctor roles from), where the admin console records them: copied. */
async function moveRolesSeen(tx: Queryable, from: PlatformRef, to: PlatformRef): Promise<void> {
  const exists = await tx.query("SELECT 1 FROM information_schema.tables WHERE table_name = 'lti_platform_activity' AND table_schema = current_schema()");
  if (exists.rowCount === 0) return;
  // Copied, not moved: the old registration keeps its own last launch (the console shows when it last
  // launched), and the new one's last launch stays its own (the row of role '').
  await tx.query(
    `INSERT INTO lti_platform_activity (issuer, client_id, role, first_at, last_at)
     SELECT $3, $4, role, first_at, last_at FROM lti_platform_activity WHERE issuer = $1 AND client_id = $2 AND role <> ''
     ON CONFLICT (issuer, client_id, role) DO NOTHING`,
    [from.issuer, from.clientId, to.issuer, to.clientId],
  );
}
