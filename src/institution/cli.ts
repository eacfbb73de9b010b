import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { toolUrl, type Config } from '../config.js';
import type { Database } from '../db/types.js';
import { HOSTED_ROUTES } from '../hosted/links.js';
import { createLogoStore } from '../hosted/logos.js';
import { PROCTOR_SETTINGS } from '../proctoring/contract.js';
import { createInstitutionSettingsStore, EXTENSION_ID, institutionSettingsSchema, platformKey, type InstitutionSettingsInput } from './settings.js';

type WithDatabase = <T>(work: (context: { config: Config; db: Database }) => Promise<T>) => Promise<T>;

interface PlatformOptions {
  issuer: string;
  clientId: string;
}

/**
 * `institution logo|allowlist|show`: what the admin console will set later (branding logo, extension
 * allowlist) from the command line, per platform (issuer + client id).
 */
export function addInstitutionCommands(program: Command, withDatabase: WithDatabase): void {
  const institution = program.command('institution').description('institution (platform) settings served by the hosted endpoints');
  const platformOptions = (command: Command) =>
    command.requiredOption('--issuer <url>', 'the platform issuer (iss)').requiredOption('--client-id <id>', 'the client id the LMS gave the tool');

  platformOptions(institution.command('logo').description('set the logo (PNG, JPEG, WebP or SVG, at most 512 KiB; SVG is sanitised) or remove it'))
    .argument('[file]', 'the image file')
    .option('--remove', 'remove the logo')
    .action(async (file: string | undefined, options: PlatformOptions & { remove?: boolean }) => {
      if (!file && !options.remove) throw new Error('give an image file, or --remove');
      await withDatabase(async ({ config, db }) => {
        const logos = createLogoStore(db);
        if (options.remove) {
          const removed = await logos.remove(options.issuer, options.clientId);
          console.log(removed ? 'Logo removed.' : 'There was no logo.');
          return;
        }
        const saved = await logos.save(options.issuer, options.clientId, await readFile(file as string));
        console.log(`Logo saved (${saved.contentType}, ${saved.bytes.length} bytes): ${toolUrl(config, `${HOSTED_ROUTES.logo}/${platformKey(options.issuer, options.clientId)}`)}`);
      });
    });

  platformOptions(institution.command('allowlist').description('set the browser extensions allowed to stay active (replaces the list)'))
    .argument('[ids...]', 'extension ids: 32 letters a–p (Chrome, Edge) or a Firefox add-on id')
    .option('--clear', 'empty the list')
    .action(async (ids: string[], options: PlatformOptions & { clear?: boolean }) => {
      const wrong = ids.filter((id) => !EXTENSION_ID.test(id));
      if (wrong.length > 0) throw new Error(`not browser-extension ids: ${wrong.join(', ')}`);
      if (ids.length === 0 && !options.clear) throw new Error('give extension ids, or --clear');
      await withDatabase(async ({ config, db }) => {
        const saved = await createInstitutionSettingsStore(db).update(options.issuer, options.clientId, { extensionAllowlist: [...new Set(ids)] });
        console.log(`${saved.extensionAllowlist.length} extension id(s) allowed: ${toolUrl(config, `${HOSTED_ROUTES.extensionAllowlist}/${platformKey(options.issuer, options.clientId)}`)}`);
      });
    });

  platformOptions(institution.command('set').description('change branding, exam domain, proctor roles and defaults (other settings are kept)'))
    .option('--proctor-role <role>', 'an LMS role URI (or short name) whose members are proctors; repeat for several', collect, [])
    .option('--no-proctor-roles', 'no LMS role makes proctors (the default)')
    .option('--ta-may-edit <yes|no>', "whether teaching assistants may change exam settings", yesNo)
    .option('--primary-color <hex>', "header colour of the proctoring pages, six hex digits without '#', or '' to remove")
    .option('--secondary-color <hex>', "secondary colour, six hex digits without '#', or '' to remove")
    .option('--domain <host>', "the institution's exam domain (spec: domain), or '' to remove")
    .option('--pre-auth <url>', "mobile-app pre-authentication URL, or '' to remove")
    .option('--post-auth <url>', "mobile-app post-authentication URL (needs --pre-auth), or '' to remove")
    .option('--proctor-setting <name=yes|no>', `a default proctor permission (${PROCTOR_SETTINGS.join(', ')}); repeat for several`, collect, [])
    .action(async (options: PlatformOptions & SetOptions) => {
      await withDatabase(async ({ db }) => {
        const store = createInstitutionSettingsStore(db);
        const current = await store.get(options.issuer, options.clientId);
        const next = applySetOptions(current, options);
        const parsed = institutionSettingsSchema.safeParse(next);
        if (!parsed.success) {
          throw new Error(`nothing was changed:\n${parsed.error.issues.map((issue) => `  ${issue.path.join('.') || '(settings)'}: ${issue.message}`).join('\n')}`);
        }
        const saved = await store.save(options.issuer, options.clientId, parsed.data);
        console.log(JSON.stringify(saved, null, 2));
      });
    });

  platformOptions(institution.command('show').description("print the platform's settings and hosted URLs"))
    .option('--json', 'print JSON')
    .action(async (options: PlatformOptions & { json?: boolean }) => {
      await withDatabase(async ({ config, db }) => {
        const key = platformKey(options.issuer, options.clientId);
        const settings = await createInstitutionSettingsStore(db).get(options.issuer, options.clientId);
        const logo = await createLogoStore(db).findByKey(key);
        const summary = {
          issuer: options.issuer,
          clientId: options.clientId,
          settings,
          logo: logo ? { contentType: logo.contentType, bytes: logo.bytes.length, updatedAt: logo.updatedAt.toISOString() } : null,
          logoUrl: toolUrl(config, `${HOSTED_ROUTES.logo}/${key}`),
          extensionAllowlistUrl: toolUrl(config, `${HOSTED_ROUTES.extensionAllowlist}/${key}`),
        };
        console.log(options.json ? JSON.stringify(summary, null, 2) : Object.entries(summary).map(([name, value]) => `${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`).join('\n'));
      });
    });
}

interface SetOptions {
  proctorRole: string[];
  proctorRoles?: boolean;
  taMayEdit?: boolean;
  primaryColor?: string;
  secondaryColor?: string;
  domain?: string;
  preAuth?: string;
  postAuth?: string;
  proctorSetting: string[];
}

const collect = (value: string, previous: string[]) => [...previous, value];

function yesNo(value: string): boolean {
  if (/^(yes|true|1)$/i.test(value)) return true;
  if (/^(no|false|0)$/i.test(value)) return false;
  throw new Error(`expected yes or no, got '${value}'`);
}

/** '' removes an optional value; undefined keeps it. */
const optional = (value: string | undefined, current: string | undefined) => (value === undefined ? current : value === '' ? undefined : value);

/** The settings after the command's options, still to be validated. */
export function applySetOptions(current: InstitutionSettingsInput, options: SetOptions): InstitutionSettingsInput {
  const proctorSettings: Record<string, boolean> = { ...current.proctorSettings };
  for (const entry of options.proctorSetting) {
    const [name, value = ''] = entry.split('=');
    if (!name || !(PROCTOR_SETTINGS as readonly string[]).includes(name)) {
      throw new Error(`unknown proctor setting '${name ?? ''}': use one of ${PROCTOR_SETTINGS.join(', ')}`);
    }
    proctorSettings[name] = yesNo(value);
  }
  const branding = { ...current.branding };
  branding.primary_color = optional(options.primaryColor, branding.primary_color);
  branding.secondary_color = optional(options.secondaryColor, branding.secondary_color);
  for (const key of ['primary_color', 'secondary_color'] as const) if (branding[key] === undefined) delete branding[key];
  const next: InstitutionSettingsInput = {
    ...current,
    branding,
    proctorSettings,
    proctorRoles: options.proctorRoles === false ? [] : options.proctorRole.length > 0 ? [...new Set(options.proctorRole)] : current.proctorRoles,
    teachingAssistantsMayEdit: options.taMayEdit ?? current.teachingAssistantsMayEdit,
    domain: optional(options.domain, current.domain),
    preAuth: optional(options.preAuth, current.preAuth),
    postAuth: optional(options.postAuth, current.postAuth),
  };
  for (const key of ['domain', 'preAuth', 'postAuth'] as const) if (next[key] === undefined) delete next[key];
  return next;
}
