import type { Command } from 'commander';
import { toolUrl } from '../config.js';
import { HOSTED_ROUTES } from '../hosted/links.js';
import { PROCTOR_SETTINGS } from '../proctoring/contract.js';
import { recordChange } from './audit.js';
import type { WithDatabase } from './context.js';
import { out, readInput } from './io.js';
import { createInstitutionSettingsStore, type InstitutionSettingsInput } from '../institution/settings.js';
import { platformKey } from '../lti/identifiers.js';
import { isOneOf } from '../values.js';

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
        const [{ createLogoStore }, { requireRegisteredPlatform }] = await Promise.all([import('../hosted/logos.js'), import('./validation.js')]);
        await requireRegisteredPlatform(db, options.issuer, options.clientId);
        const logos = createLogoStore(db);
        if (options.remove || !file) {
          const removed = await logos.remove(options.issuer, options.clientId);
          if (removed) await recordChange(db, { action: 'institution.logo', target: `${options.issuer} (client id ${options.clientId})`, changes: [{ field: 'logo', old: '(set)', new: undefined }] });
          out(removed ? 'Logo removed.' : 'There was no logo.');
          return;
        }
        const { LogoError } = await import('../hosted/logo-image.js');
        let saved;
        try {
          saved = await logos.save(options.issuer, options.clientId, await readInput(file));
        } catch (error) {
          // The console's wording: "The logo was not saved: <why>."
          if (error instanceof LogoError) throw new Error(`The logo was not saved: ${error.message}.`);
          throw error;
        }
        await recordChange(db, { action: 'institution.logo', target: `${options.issuer} (client id ${options.clientId})`, changes: [{ field: 'logo', new: `${saved.contentType}, ${saved.bytes.length} bytes` }] });
        out(`Logo saved (${saved.contentType}, ${saved.bytes.length} bytes): ${toolUrl(config, `${HOSTED_ROUTES.logo}/${platformKey(options.issuer, options.clientId)}`)}`);
      });
    });

  platformOptions(institution.command('allowlist').description('set the browser extensions allowed to stay active (replaces the list)'))
    .argument('[ids...]', 'extension ids: 32 letters a–p (Chrome, Edge) or a Firefox add-on id')
    .option('--clear', 'empty the list')
    .action(async (ids: string[], options: PlatformOptions & { clear?: boolean }) => {
      if (ids.length === 0 && !options.clear) throw new Error('give extension ids, or --clear');
      const { checkExtensionAllowlist, RefusedInputError, requireRegisteredPlatform } = await import('./validation.js');
      const checked = checkExtensionAllowlist(ids);
      if (!checked.ok) throw new RefusedInputError(checked.problems);
      await withDatabase(async ({ config, db }) => {
        await requireRegisteredPlatform(db, options.issuer, options.clientId);
        const store = createInstitutionSettingsStore(db);
        const before = await store.get(options.issuer, options.clientId);
        const saved = await store.update(options.issuer, options.clientId, { extensionAllowlist: checked.value });
        await recordChange(db, { action: 'institution.update', target: `${options.issuer} (client id ${options.clientId})`, changes: [{ field: 'extensionAllowlist', old: JSON.stringify(before.extensionAllowlist), new: JSON.stringify(saved.extensionAllowlist) }] });
        out(`${saved.extensionAllowlist.length} extension id(s) allowed: ${toolUrl(config, `${HOSTED_ROUTES.extensionAllowlist}/${platformKey(options.issuer, options.clientId)}`)}`);
      });
    });

  platformOptions(institution.command('set').description('change branding, exam domain, proctor roles and defaults (other settings are kept)'))
    .option('--proctor-role <role>', 'an LMS role URI (or short name) whose members are proctors; repeat for several', collect, [])
    .option('--no-proctor-roles', 'no LMS role makes proctors (the default)')
    .option('--ta-may-edit <yes|no>', "whether teaching assistants may change exam settings", yesNo)
    .option('--primary-color <hex>', "header colour of the proctoring pages, 6 hexadecimal digits like 0b5cad, or '' to remove")
    .option('--secondary-color <hex>', "secondary colour, 6 hexadecimal digits like 0b5cad, or '' to remove")
    .option('--domain <host>', "the institution's exam domain (spec: domain), or '' to remove")
    .option('--pre-auth <url>', "mobile-app pre-authentication URL, or '' to remove")
    .option('--post-auth <url>', "mobile-app post-authentication URL (needs --pre-auth), or '' to remove")
    .option('--proctor-setting <name=yes|no>', `a default proctor permission (${PROCTOR_SETTINGS.join(', ')}); repeat for several`, collect, [])
    .action(async (options: PlatformOptions & SetOptions) => {
      await withDatabase(async ({ db }) => {
        const { checkInstitutionSettings, RefusedInputError, requireRegisteredPlatform } = await import('./validation.js');
        await requireRegisteredPlatform(db, options.issuer, options.clientId);
        const store = createInstitutionSettingsStore(db);
        const current = await store.get(options.issuer, options.clientId);
        const checked = checkInstitutionSettings(applySetOptions(current, options));
        if (!checked.ok) throw new RefusedInputError(checked.problems);
        const saved = await store.save(options.issuer, options.clientId, checked.value);
        await recordChange(db, { action: 'institution.update', target: `${options.issuer} (client id ${options.clientId})`, changes: settingsChanges(current, saved) });
        out(JSON.stringify(saved, null, 2));
      });
    });

  platformOptions(institution.command('show').description("print the platform's settings and hosted URLs"))
    .option('--json', 'print JSON')
    .action(async (options: PlatformOptions & { json?: boolean }) => {
      await withDatabase(async ({ config, db }) => {
        const key = platformKey(options.issuer, options.clientId);
        const settings = await createInstitutionSettingsStore(db).get(options.issuer, options.clientId);
        const { createLogoStore } = await import('../hosted/logos.js');
        const logo = await createLogoStore(db).findByKey(key);
        const summary = {
          issuer: options.issuer,
          clientId: options.clientId,
          settings,
          logo: logo ? { contentType: logo.contentType, bytes: logo.bytes.length, updatedAt: logo.updatedAt.toISOString() } : null,
          logoUrl: toolUrl(config, `${HOSTED_ROUTES.logo}/${key}`),
          extensionAllowlistUrl: toolUrl(config, `${HOSTED_ROUTES.extensionAllowlist}/${key}`),
        };
        out(options.json ? JSON.stringify(summary, null, 2) : Object.entries(summary).map(([name, value]) => `${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`).join('\n'));
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
    if (!name || !isOneOf(PROCTOR_SETTINGS, name)) {
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

/** Field-by-field old → new of two settings documents, for the audit log. */
function settingsChanges(before: Record<string, unknown>, after: Record<string, unknown>): Array<{ field: string; old?: string; new?: string }> {
  const show = (value: unknown) => (value === undefined ? undefined : typeof value === 'string' ? value : JSON.stringify(value));
  return [...new Set([...Object.keys(before), ...Object.keys(after)])]
    .filter((field) => show(before[field]) !== show(after[field]))
    .map((field) => ({ field, old: show(before[field]), new: show(after[field]) }));
}
