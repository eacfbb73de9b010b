import type { Queryable } from '../db/types.js';

/**
 * What an administrator still does in the LMS after the tool is registered there, per LMS: the registration
 * cannot ask for it (docs/lms-notes.md, docs/registration.md). Moodle 5.1's dynamic registration always makes
 * the tool pending, preconfigured only and embedded without blocks; Canvas needs its developer key switched on
 * and the app added by client id. Each item's text (catalog `admin:platforms.checklist.items.<family>.<item>`)
 * says where to click.
 */
export const SETUP_CHECKLISTS = {
  moodle: ['activate', 'chooser', 'newWindow', 'httpSecurity'],
  canvas: ['keyOn', 'appAdded', 'placements'],
  generic: ['enable', 'available', 'newWindow', 'tryIt'],
} as const;

export type ChecklistFamily = keyof typeof SETUP_CHECKLISTS;

/** A registration as far as telling its LMS apart goes. */
export interface RegistrationTraits {
  issuer: string;
  authUrl: string;
  /** `product_family_code` of the LMS's dynamic registration, when it came that way. */
  productFamily?: string;
}

const pathOf = (url: string): string => {
  try {
    return new URL(url).pathname;
  } catch {
    return '';
  }
};
const hostOf = (url: string): string => {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
};

/**
 * The LMS of a registration: the product family it named in dynamic registration, else its endpoints (Moodle's
 * are under `/mod/lti/`, Canvas's authorization is `/api/lti/authorize_redirect` and cloud Canvas's issuer is
 * on instructure.com); anything else gets the generic list.
 */
export function checklistFamilyOf(traits: RegistrationTraits): ChecklistFamily {
  const family = traits.productFamily?.trim().toLowerCase();
  if (family === 'moodle' || family === 'canvas') return family;
  if (family) return 'generic';
  if (pathOf(traits.authUrl).endsWith('/mod/lti/auth.php')) return 'moodle';
  const issuerHost = hostOf(traits.issuer);
  if (pathOf(traits.authUrl).endsWith('/api/lti/authorize_redirect') || issuerHost === 'instructure.com' || issuerHost.endsWith('.instructure.com')) return 'canvas';
  return 'generic';
}

/** One platform's checklist as stored: nothing stored is a checklist with nothing ticked, shown. */
export interface ChecklistState {
  productFamily?: string;
  done: string[];
  dismissed: boolean;
}

export interface SetupChecklistStore {
  get(issuer: string, clientId: string): Promise<ChecklistState>;
  /** Remembers the product family an LMS named when it registered the tool (dynamic registration). */
  noteRegistered(issuer: string, clientId: string, productFamily: string | undefined): Promise<void>;
  /** The items ticked off now (the others are not); only the family's own items are kept. */
  setDone(issuer: string, clientId: string, done: readonly string[]): Promise<void>;
  setDismissed(issuer: string, clientId: string, dismissed: boolean): Promise<void>;
  remove(issuer: string, clientId: string): Promise<void>;
}

export function createSetupChecklistStore(db: Queryable): SetupChecklistStore {
  return {
    async get(issuer, clientId) {
      const { rows } = await db.query<{ product_family: string | null; done: string[]; dismissed_at: Date | null }>(
        'SELECT product_family, done, dismissed_at FROM platform_setup_checklists WHERE issuer = $1 AND client_id = $2',
        [issuer, clientId],
      );
      const row = rows[0];
      return { productFamily: row?.product_family ?? undefined, done: row?.done ?? [], dismissed: Boolean(row?.dismissed_at) };
    },
    async noteRegistered(issuer, clientId, productFamily) {
      // A new registration under the same issuer and client id starts its checklist again.
      await db.query(
        `INSERT INTO platform_setup_checklists (issuer, client_id, product_family) VALUES ($1, $2, $3)
         ON CONFLICT (issuer, client_id) DO UPDATE SET product_family = EXCLUDED.product_family, done = '{}', dismissed_at = NULL, updated_at = now()`,
        [issuer, clientId, productFamily?.slice(0, 100) ?? null],
      );
    },
    async setDone(issuer, clientId, done) {
      await db.query(
        `INSERT INTO platform_setup_checklists (issuer, client_id, done) VALUES ($1, $2, $3::text[])
         ON CONFLICT (issuer, client_id) DO UPDATE SET done = EXCLUDED.done, updated_at = now()`,
        [issuer, clientId, [...done]],
      );
    },
    async setDismissed(issuer, clientId, dismissed) {
      await db.query(
        `INSERT INTO platform_setup_checklists (issuer, client_id, dismissed_at) VALUES ($1, $2, CASE WHEN $3::boolean THEN now() END)
         ON CONFLICT (issuer, client_id) DO UPDATE SET dismissed_at = EXCLUDED.dismissed_at, updated_at = now()`,
        [issuer, clientId, dismissed],
      );
    },
    async remove(issuer, clientId) {
      await db.query('DELETE FROM platform_setup_checklists WHERE issuer = $1 AND client_id = $2', [issuer, clientId]);
    },
  };
}
