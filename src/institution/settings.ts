import { z } from 'zod';
import type { Queryable } from '../db/types.js';
import { platformKey } from '../lti/identifiers.js';
import { brandingSchema, HOSTNAME, proctorSettingsSchema } from '../proctoring/contract.js';
import { readCache } from '../db/read-cache.js';
import { deepFrozen } from '../values.js';

/**
 * Browser-extension ids: Chromium's 32 letters a–p, or a Firefox add-on id (a GUID in braces or an
 * e-mail-like id). https://developer.chrome.com/docs/extensions/reference/manifest/key
 */
export const EXTENSION_ID = /^(?:[a-p]{32}|\{[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\}|[A-Za-z0-9._+-]{1,64}@[A-Za-z0-9.-]{1,100})$/;

/**
 * What an LMS administrator sets once for a platform (one issuer + client id): branding, the exam
 * domain, the extension allowlist, which LMS roles count as proctors, and defaults for exams.
 * The logo image itself is kept by the hosted endpoints (src/hosted/).
 */
/** The platforms whose LTI Proctoring Services flow the tool knows (their assessment pages have default patterns). */
export const PROCTORING_SERVICES_LMS = ['blackboard-ultra', 'open-edx', 'custom'] as const;
export type ProctoringServicesLms = (typeof PROCTORING_SERVICES_LMS)[number];

/**
 * What an assessment the tool has never seen runs with when a platform starts it through LTI Proctoring Services:
 * a security preset's settings, and the patterns of the platform's assessment pages (`{origin}`: the origin of
 * the platform's start_assessment_url). Each member absent: the built-in default for the platform.
 */
export const proctoringServicesDefaultsSchema = z.strictObject({
  lms: z.enum(PROCTORING_SERVICES_LMS).optional(),
  securityPreset: z.string().min(1).max(50).optional(),
  examTake: z.string().max(1000).optional(),
  examEnd: z.string().max(1000).optional(),
  /** Whether the tool asks the platform to send LtiEndAssessment at the end (default: yes). */
  endAssessmentReturn: z.boolean().optional(),
});
export type ProctoringServicesDefaults = z.infer<typeof proctoringServicesDefaultsSchema>;

export const institutionSettingsSchema = z.strictObject({
  /** Colours only: logo_url always points at the tool's own logo endpoint. */
  branding: brandingSchema.omit({ logo_url: true }).default({}),
  domain: z.string().min(1).max(100).regex(HOSTNAME, 'must be a host name such as exams.example.edu, without https:// or a path').optional(),
  extensionAllowlist: z.array(z.string().regex(EXTENSION_ID, 'not a browser-extension id')).max(200).default([]),
  /** Role URIs (or short names) that make a member of a course a proctor. None by default. */
  proctorRoles: z.array(z.string().min(1).max(300)).max(50).default([]),
  teachingAssistantsMayEdit: z.boolean().default(false),
  /** Defaults for the live launch and launchpad; an exam's own proctor_settings win. */
  proctorSettings: proctorSettingsSchema.default({}),
  /** Mobile-app pre-authentication URLs (pre_auth / post_auth), when the institution uses the mobile app. */
  preAuth: z.url({ protocol: /^https?$/ }).max(600).optional(),
  postAuth: z.url({ protocol: /^https?$/ }).max(600).optional(),
  /** LTI Proctoring Services (Blackboard Learn Ultra, Open edX): defaults for assessments the tool has never seen. */
  proctoringServices: proctoringServicesDefaultsSchema.default({}),
});

export type InstitutionSettings = z.infer<typeof institutionSettingsSchema>;
export type InstitutionSettingsInput = z.input<typeof institutionSettingsSchema>;

export const DEFAULT_INSTITUTION_SETTINGS: InstitutionSettings = institutionSettingsSchema.parse({});

export interface InstitutionSettingsStore {
  /** The platform's settings, defaults filled in; the defaults when none were saved. Frozen: copy to change them. */
  get(issuer: string, clientId: string): Promise<InstitutionSettings>;
  /** The platform a public key names, if any settings or logo were saved for it. */
  findByKey(key: string): Promise<{ issuer: string; clientId: string; settings: InstitutionSettings } | undefined>;
  /** Validates and saves; throws a ZodError naming each wrong field. */
  save(issuer: string, clientId: string, settings: InstitutionSettingsInput): Promise<InstitutionSettings>;
  /** Changes some fields, keeping the others. */
  update(issuer: string, clientId: string, change: Partial<InstitutionSettingsInput>): Promise<InstitutionSettings>;
}

interface Row {
  issuer: string;
  client_id: string;
  settings: unknown;
}

function parseStored(value: unknown): InstitutionSettings {
  const parsed = institutionSettingsSchema.safeParse(value ?? {});
  // A stored value that no longer parses (a field removed in a later version) falls back field by field.
  return parsed.success ? parsed.data : structuredClone(DEFAULT_INSTITUTION_SETTINGS);
}

export function createInstitutionSettingsStore(db: Queryable): InstitutionSettingsStore {
  const cached = readCache<InstitutionSettings>(db, 'institution-settings');
  async function save(issuer: string, clientId: string, input: InstitutionSettingsInput): Promise<InstitutionSettings> {
    const settings = institutionSettingsSchema.parse(input);
    cached.clear();
    await db.query(
      `INSERT INTO institution_settings (issuer, client_id, platform_key, settings) VALUES ($1, $2, $3, $4::jsonb)
       ON CONFLICT (issuer, client_id) DO UPDATE SET settings = EXCLUDED.settings, updated_at = now()`,
      [issuer, clientId, platformKey(issuer, clientId), JSON.stringify(settings)],
    );
    cached.clear();
    return settings;
  }
  const store: InstitutionSettingsStore = {
    async get(issuer, clientId) {
      // Every launch reads them: reused for a few seconds (db/read-cache.ts), frozen, so every caller shares them.
      return cached.get(JSON.stringify([issuer, clientId]), async () => {
        const result = await db.query<Row>('SELECT issuer, client_id, settings FROM institution_settings WHERE issuer = $1 AND client_id = $2', [issuer, clientId]);
        return deepFrozen(parseStored(result.rows[0]?.settings));
      });
    },
    async findByKey(key) {
      const result = await db.query<Row>('SELECT issuer, client_id, settings FROM institution_settings WHERE platform_key = $1', [key]);
      const row = result.rows[0];
      return row ? { issuer: row.issuer, clientId: row.client_id, settings: parseStored(row.settings) } : undefined;
    },
    save,
    async update(issuer, clientId, change) {
      const current = await store.get(issuer, clientId);
      return save(issuer, clientId, { ...current, ...change });
    },
  };
  return store;
}
