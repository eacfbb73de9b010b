import { readGeneration } from '../db/read-cache.js';
import { prepared } from '../db/prepared.js';
import type { Database } from '../db/types.js';
import type { Logger } from '../logger.js';
import { encryptionKeysOf } from '../dev-encryption-key.js';
import { createAppSecrets, type AppSecrets, type AppSecretVersion } from '../db/app-secrets.js';
import { createSecretBox } from '../secrets/secret-box.js';
import { verifyEncryptionKeys } from './encryption-check.js';
import type { PseudonymKeyring } from './identifiers.js';

/**
 * The pseudonym keys (app secret `pseudonyms`, every version) and which one derives each issuer's ids. The
 * ids sent to the proctoring service must never change for a person, an exam or a course: an issuer stays
 * bound to the key version its ids were first derived with (table `pseudonym_bindings`). A rotation first
 * binds every issuer the tool knows to the version in use, then adds a new one, which only issuers seen
 * afterwards use. Retiring older versions is therefore never offered for this secret.
 */
export type PseudonymKeys = PseudonymKeyring;

interface Loaded {
  versions: AppSecretVersion[];
  bindings: Map<string, number>;
  /** Issuer → the issuer its ids are derived as (a platform moved to a new issuer keeps the old one's ids). */
  namespaces: Map<string, string>;
}

async function load(db: Database, secrets: AppSecrets, fresh = false): Promise<Loaded> {
  const [versions, bound] = await Promise.all([
    secrets.versions('pseudonyms', fresh),
    db.query<{ issuer: string; version: number; derive_as: string | null }>('SELECT issuer, version, derive_as FROM pseudonym_bindings'),
  ]);
  return {
    versions,
    bindings: new Map(bound.rows.map((row) => [row.issuer, row.version])),
    namespaces: new Map(bound.rows.flatMap((row): Array<[string, string]> => (row.derive_as === null ? [] : [[row.issuer, row.derive_as]]))),
  };
}

/**
 * What derives `issuer`'s ids now, as stored: the newest key version and the issuer's binding. One read of a
 * primary key (about a plain round trip).
 */
const CURRENT_BINDING = prepared(`SELECT (SELECT max(version) FROM app_secrets WHERE name = 'pseudonyms') AS newest, b.version, b.derive_as
  FROM (SELECT 1) one LEFT JOIN pseudonym_bindings b ON b.issuer = $1`);

interface StoredBinding {
  newest: number | null;
  version: number | null;
  derive_as: string | null;
}

/**
 * Whether `loaded` derives `issuer`'s ids as `stored` says. A moved issuer's binding carries the version of the
 * issuer it derives as (platforms/move.ts binds both to it), so that one must be loaded too.
 */
function agrees(loaded: Loaded, issuer: string, stored: StoredBinding | undefined): boolean {
  if ((stored?.newest ?? undefined) !== loaded.versions[0]?.version) return false;
  const version = stored?.version ?? undefined;
  const deriveAs = stored?.derive_as ?? undefined;
  if (version !== loaded.bindings.get(issuer) || deriveAs !== loaded.namespaces.get(issuer)) return false;
  return deriveAs === undefined || loaded.bindings.get(deriveAs) === version;
}

/**
 * Reads the keys and bindings once; a change another process makes (a rotation, a platform move) is read again
 * in the background once its change notice arrives, while the keys read so far keep serving. A launch does not
 * wait for that notice: `confirm` compares the launch's issuer with the stored rows first (a platform moved by
 * another replica a moment ago derives its ids as the old issuer's from the first launch on).
 */
export async function loadPseudonymKeys(db: Database, secrets: AppSecrets, logger?: Pick<Logger, 'warn'>): Promise<PseudonymKeys> {
  let current = await load(db, secrets);
  let generation = readGeneration();
  let reloading = false;
  // Loads finish in any order: one that started earlier never replaces what a later one read.
  let started = 0;
  let applied = 0;
  const loadInOrder = async (fresh: boolean): Promise<void> => {
    const seen = readGeneration();
    const mine = ++started;
    const loaded = await load(db, secrets, fresh);
    if (mine < applied) return;
    applied = mine;
    current = loaded;
    generation = seen;
  };
  const refresh = () => {
    if (reloading || generation === readGeneration()) return;
    reloading = true;
    loadInOrder(false)
      .catch((error: unknown) => logger?.warn({ err: error }, 'could not read the pseudonym keys again: the ones read before stay in use'))
      .finally(() => {
        reloading = false;
      });
  };
  const newestOf = (): AppSecretVersion => {
    const [newest] = current.versions;
    if (!newest) throw new Error('no pseudonym key is stored');
    return newest;
  };
  return {
    secretFor(issuer) {
      refresh();
      const bound = current.bindings.get(issuer);
      const version = bound === undefined ? undefined : current.versions.find((entry) => entry.version === bound);
      return (version ?? newestOf()).value;
    },
    namespaceOf(issuer) {
      refresh();
      return current.namespaces.get(issuer) ?? issuer;
    },
    async reload() {
      await loadInOrder(true);
    },
    async confirm(issuer) {
      const { rows } = await db.query<StoredBinding>(CURRENT_BINDING, [issuer]);
      if (!agrees(current, issuer, rows[0])) await loadInOrder(true);
    },
    get newest() {
      refresh();
      return newestOf().value;
    },
    get all() {
      refresh();
      return current.versions.map((entry) => entry.value);
    },
  };
}

/** Every issuer the tool holds data of: registered platforms, deployments, exams, courses and attempts' launches. */
const KNOWN_ISSUERS = `
  SELECT doc->>'platformUrl' AS issuer FROM ltijs_documents WHERE collection = 'platform' AND doc->>'platformUrl' IS NOT NULL
  UNION SELECT issuer FROM lti_deployments
  UNION SELECT issuer FROM exams
  UNION SELECT issuer FROM lti_contexts
  UNION SELECT issuer FROM launch_log`;

/**
 * A new pseudonym key: every known issuer without a binding is first bound to the version its ids are derived
 * with now (the newest), in the same transaction. Returns the new version and how many issuers were bound.
 */
export async function rotatePseudonymKey(secrets: AppSecrets): Promise<{ version: number; bound: number }> {
  await secrets.versions('pseudonyms');
  let bound = 0;
  const version = await secrets.rotate('pseudonyms', async (tx) => {
    const { rowCount } = await tx.query(
      `INSERT INTO pseudonym_bindings (issuer, version)
       SELECT issuer, (SELECT max(version) FROM app_secrets WHERE name = 'pseudonyms') FROM (${KNOWN_ISSUERS}) known WHERE issuer IS NOT NULL
       ON CONFLICT (issuer) DO NOTHING`,
    );
    bound = rowCount;
  });
  return { version, bound };
}

/** The pseudonym keys for a command: ENCRYPTION_KEY (or the development key) checked first. */
export async function openPseudonymKeys(db: Database, config: { encryptionKeys: readonly string[]; database: { dataDir: string } }): Promise<PseudonymKeys> {
  const keys = encryptionKeysOf(config);
  await verifyEncryptionKeys(db, keys);
  return loadPseudonymKeys(db, createAppSecrets(db, createSecretBox(keys)));
}
