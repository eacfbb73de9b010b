import type { Request, Response } from 'express';
import { z } from 'zod';
import { parseBody, textField, textList } from '../../http/request-input.js';
import { HOSTED_ROUTES } from '../../hosted/links.js';
import { inspectLogo, LOGO_MAX_BYTES, LOGO_MAX_PIXELS_PER_SIDE, LogoError } from '../../hosted/logo-image.js';
import { createLogoStore } from '../../hosted/logos.js';
import { PROCTORING_SERVICES_LMS, type InstitutionSettings, type InstitutionSettingsInput, type ProctoringServicesDefaults } from '../../institution/settings.js';
import { securityPresetText, SECURITY_PRESETS } from '../../exams/settings/presets/security.js';
import { localizeViolation } from '../../exams/settings/violations.js';
import { DEFAULT_PROCTORING_PRESET, proctoringDocument, proctoringPages } from '../../launches/proctoring-services.js';
import { platformKey } from '../../lti/identifiers.js';
import { checkInstitutionSettings, COLOUR_FORMAT } from '../../institution/validation.js';
import { proctorRoleRefusal, roleDisplay, type RoleGroup } from '../../lti/roles.js';
import type { FieldProblem } from '../../lti/platform-input.js';
import type { PlatformSummary } from '../../lti/provider.js';
import { PROCTOR_SETTINGS } from '../../proctoring/contract.js';
import { changesBetween } from '../audit.js';
import { uploadedFile } from '../../http/uploads.js';
import { localizedProblem, textOf, type Translate } from '../i18n.js';
import { adminPage } from '../page.js';
import { describePlatform, findPlatform, platformKeyOf } from './platforms.js';

/** The order the page lists the roles a platform has sent in. */
const ROLE_GROUPS: readonly RoleGroup[] = ['course', 'institution', 'system', 'other'];

type FormValues = Record<string, string | string[] | undefined>;

/** The form's fields from saved settings (what the page shows). */
function formValuesOf(settings: InstitutionSettings): FormValues {
  return {
    primaryColor: settings.branding.primary_color ?? '',
    secondaryColor: settings.branding.secondary_color ?? '',
    domain: settings.domain ?? '',
    extensionAllowlist: settings.extensionAllowlist.join('\n'),
    proctorRoles: settings.proctorRoles,
    teachingAssistantsMayEdit: settings.teachingAssistantsMayEdit ? 'yes' : '',
    preAuth: settings.preAuth ?? '',
    postAuth: settings.postAuth ?? '',
    apLms: settings.proctoringServices.lms ?? '',
    apSecurityPreset: settings.proctoringServices.securityPreset ?? DEFAULT_PROCTORING_PRESET,
    apExamTake: settings.proctoringServices.examTake ?? '',
    apExamEnd: settings.proctoringServices.examEnd ?? '',
    apEndAssessmentReturn: settings.proctoringServices.endAssessmentReturn === false ? '' : 'yes',
    ...Object.fromEntries(PROCTOR_SETTINGS.map((name) => [`proctor_${name}`, settings.proctorSettings[name] === undefined ? '' : settings.proctorSettings[name] ? 'yes' : 'no'])),
  };
}

const INSTITUTION_FORM = z.object({
  primaryColor: textField,
  secondaryColor: textField,
  domain: textField,
  extensionAllowlist: textField,
  proctorRoles: textList,
  otherProctorRoles: textField,
  teachingAssistantsMayEdit: textField,
  preAuth: textField,
  postAuth: textField,
  apLms: textField,
  apSecurityPreset: textField,
  apExamTake: textField,
  apExamEnd: textField,
  apEndAssessmentReturn: textField,
});
/** One `proctor_<setting>` field per default proctor setting: `yes`, `no` or empty (not set). */
const PROCTOR_SETTINGS_FORM = z.object(Object.fromEntries(PROCTOR_SETTINGS.map((name) => [`proctor_${name}`, textField])));

/** Settings as the form submitted them, still to be checked, and the values to show the form again with. */
function settingsFromForm(req: Request): { input: InstitutionSettingsInput; values: FormValues } {
  const body = parseBody(INSTITUTION_FORM, req);
  const proctorFields = parseBody(PROCTOR_SETTINGS_FORM, req);
  const proctorSettings: Record<string, boolean> = {};
  for (const name of PROCTOR_SETTINGS) {
    const value = proctorFields[`proctor_${name}`]?.trim();
    if (value === 'yes' || value === 'no') proctorSettings[name] = value === 'yes';
  }
  const text = (value: string) => value.trim();
  const roles = [...body.proctorRoles, ...text(body.otherProctorRoles).split(/\s+/)].map((role) => role.trim()).filter(Boolean);
  const input: InstitutionSettingsInput = {
    branding: { primary_color: text(body.primaryColor) || undefined, secondary_color: text(body.secondaryColor) || undefined },
    extensionAllowlist: [...new Set(text(body.extensionAllowlist).split(/[\s,]+/).filter(Boolean))],
    proctorRoles: roles,
    teachingAssistantsMayEdit: text(body.teachingAssistantsMayEdit) === 'yes',
    proctorSettings,
  };
  if (text(body.domain)) input.domain = text(body.domain);
  if (text(body.preAuth)) input.preAuth = text(body.preAuth);
  if (text(body.postAuth)) input.postAuth = text(body.postAuth);
  input.proctoringServices = proctoringServicesFromForm(body);
  const values: FormValues = { ...body, ...proctorFields, proctorRoles: roles };
  return { input, values };
}

/** LTI Proctoring Services' defaults as the form gives them; an unknown choice is left for the schema to name. */
function proctoringServicesFromForm(body: z.infer<typeof INSTITUTION_FORM>): ProctoringServicesDefaults {
  const lms = PROCTORING_SERVICES_LMS.find((known) => known === body.apLms.trim());
  const defaults: ProctoringServicesDefaults = { endAssessmentReturn: body.apEndAssessmentReturn.trim() === 'yes' };
  if (lms) defaults.lms = lms;
  if (body.apSecurityPreset.trim()) defaults.securityPreset = body.apSecurityPreset.trim();
  if (body.apExamTake.trim()) defaults.examTake = body.apExamTake.trim();
  if (body.apExamEnd.trim()) defaults.examEnd = body.apExamEnd.trim();
  return defaults;
}

/**
 * What the Launch API would refuse in the platform's defaults: each page pattern, read with an example start
 * address for `{origin}`, through the same document an assessment of the platform runs with.
 */
function proctoringServicesProblems(t: Translate, toolBaseUrl: string, defaults: ProctoringServicesDefaults | undefined): FieldProblem[] {
  if (!defaults) return [];
  const pages = proctoringPages({ toolBaseUrl, handoffId: EXAMPLE_HANDOFF, start: { startAssessmentUrl: 'https://lms.example.edu/start' }, defaults });
  const document = proctoringDocument(null, defaults, pages);
  if (document.ok) return [];
  const fields: Record<string, string> = { exam_take: 'apExamTake', exam_end: 'apExamEnd' };
  return document.violations.map((violation) => ({ field: fields[violation.path] ?? 'apSecurityPreset', message: localizeViolation(t, violation).message }));
}

const EXAMPLE_HANDOFF = '00000000-0000-4000-8000-000000000000';

/** Flat view of settings for the audit log's old → new. */
function auditView(settings: InstitutionSettings): Record<string, unknown> {
  return {
    primaryColor: settings.branding.primary_color,
    secondaryColor: settings.branding.secondary_color,
    domain: settings.domain,
    extensionAllowlist: settings.extensionAllowlist.join(', ') || undefined,
    proctorRoles: settings.proctorRoles.join(', ') || undefined,
    teachingAssistantsMayEdit: settings.teachingAssistantsMayEdit,
    preAuth: settings.preAuth,
    postAuth: settings.postAuth,
    ...Object.fromEntries(Object.entries(settings.proctoringServices).map(([name, value]) => [`proctoringServices.${name}`, value])),
    ...Object.fromEntries(PROCTOR_SETTINGS.map((name) => [`proctorSettings.${name}`, settings.proctorSettings[name]])),
  };
}

/**
 * Institution settings per platform: logo (the hosted endpoints' checks: type by content, size, pixel
 * dimensions, SVG sanitised), colours, exam domain, extension allowlist, proctor roles chosen from the
 * roles the platform has sent, whether teaching assistants may edit, default proctor settings, and the
 * mobile app's pre/post authentication URLs.
 */
export const institutionPage = adminPage(
  { id: 'institution', path: '/institution', navOrder: 20 },
  (routes, context) => {
    const logos = createLogoStore(context.db);

    routes.get('/', async (req, res) => {
      const platforms = (await context.lti.platforms.list()).map((p) => ({ ...p, key: platformKey(p.issuer, p.clientId) }));
      context.render(req, res, 'admin/institution/index', { title: textOf(res)('admin:institution.title'), platforms });
    });

    const renderForm = async (req: Request, res: Response, platform: PlatformSummary, values: FormValues, problems: FieldProblem[] = [], logoProblem?: string) => {
      const key = platformKey(platform.issuer, platform.clientId);
      const seen = await context.platformActivity.seenRoles(platform.issuer, platform.clientId);
      const chosen = [values.proctorRoles ?? []].flat();
      const roles = [...new Set([...seen.map((s) => s.role), ...chosen])]
        .map((role) => ({ role, ...roleDisplay(role), refusal: proctorRoleRefusal(role), seen: seen.some((s) => s.role === role), checked: chosen.includes(role) }))
        .sort((a, b) => a.name.localeCompare(b.name));
      const roleGroups = ROLE_GROUPS.map((group) => ({ group, roles: roles.filter((r) => r.group === group) })).filter((g) => g.roles.length > 0);
      const logo = await logos.findByKey(key);
      context.render(req, res, 'admin/institution/edit', {
        title: textOf(res)('admin:institution.pageTitle', { name: platform.name }),
        platform,
        key,
        values,
        problems,
        logoProblem,
        roleGroups,
        proctorSettings: PROCTOR_SETTINGS,
        proctoringServices: {
          lms: PROCTORING_SERVICES_LMS,
          presets: SECURITY_PRESETS.map((preset) => ({ id: preset.id, label: securityPresetText(textOf(res), preset).label })),
        },
        colourFormat: COLOUR_FORMAT,
        logo: logo ? { url: `${context.toolUrl(`${HOSTED_ROUTES.logo}/${key}`)}?v=${encodeURIComponent(logo.etag)}`, contentType: logo.contentType, bytes: logo.bytes.length } : undefined,
        logoMaxKiB: LOGO_MAX_BYTES / 1024,
        logoMaxPixels: LOGO_MAX_PIXELS_PER_SIDE,
      });
    };

    routes.get('/:key', async (req, res) => {
      const platform = await findPlatform(context, platformKeyOf(req));
      await renderForm(req, res, platform, formValuesOf(await context.institutions.get(platform.issuer, platform.clientId)));
    });

    // One save for the whole page: the settings and, when one is chosen, the logo. Both are checked before
    // either is saved, so a refused logo saves nothing and refused settings do not keep a new logo.
    routes.post('/:key', async (req, res) => {
      const platform = await findPlatform(context, platformKeyOf(req));
      const { input, values } = settingsFromForm(req);
      const file = uploadedFile(req, 'logo');
      const checked = checkInstitutionSettings(input);
      const patternProblems = proctoringServicesProblems(textOf(res), context.toolUrl(''), input.proctoringServices);
      let logoProblem: string | undefined;
      if (file) {
        try {
          inspectLogo(file);
        } catch (error) {
          if (!(error instanceof LogoError)) throw error;
          logoProblem = textOf(res)('admin:institution.logo.notSavedNothing', { reason: error.message });
        }
      }
      if (!checked.ok || logoProblem || patternProblems.length > 0) {
        if (file && !logoProblem) logoProblem = textOf(res)('admin:institution.logo.chooseAgain');
        res.status(400);
        const problems = [...(checked.ok ? [] : checked.problems), ...patternProblems];
        await renderForm(req, res, platform, values, problems.map((problem) => localizedProblem(textOf(res), problem)), logoProblem);
        return;
      }
      if (file) {
        try {
          const logo = await logos.save(platform.issuer, platform.clientId, file);
          await context.recordChange(req, { action: 'institution.logo', target: describePlatform(platform), changes: [{ field: 'logo', new: `${logo.contentType}, ${logo.bytes.length} bytes` }] });
        } catch (error) {
          // Only the SVG sanitiser can still refuse a file the inspection passed.
          if (!(error instanceof LogoError)) throw error;
          res.status(400);
          await renderForm(req, res, platform, values, [], textOf(res)('admin:institution.logo.notSavedNothing', { reason: error.message }));
          return;
        }
      }
      const before = await context.institutions.get(platform.issuer, platform.clientId);
      const saved = await context.institutions.save(platform.issuer, platform.clientId, checked.value);
      const changes = changesBetween(auditView(before), auditView(saved));
      if (changes.length > 0) await context.recordChange(req, { action: 'institution.update', target: describePlatform(platform), changes });
      res.redirect(303, `/admin/institution/${platformKeyOf(req)}?done=settings-saved`);
    });

    // Removing the logo asks first, on a page of its own (no script needed).
    routes.get('/:key/logo/remove', async (req, res) => {
      const platform = await findPlatform(context, platformKeyOf(req));
      const key = platformKey(platform.issuer, platform.clientId);
      const logo = await logos.findByKey(key);
      if (!logo) {
        res.redirect(303, `/admin/institution/${key}`);
        return;
      }
      context.render(req, res, 'admin/institution/remove-logo', {
        title: textOf(res)('admin:institution.logo.removeTitle'),
        platform,
        key,
        logoUrl: `${context.toolUrl(`${HOSTED_ROUTES.logo}/${key}`)}?v=${encodeURIComponent(logo.etag)}`,
      });
    });

    routes.post('/:key/logo/remove', async (req, res) => {
      const platform = await findPlatform(context, platformKeyOf(req));
      if (await logos.remove(platform.issuer, platform.clientId)) await context.recordChange(req, { action: 'institution.logo', target: describePlatform(platform), changes: [{ field: 'logo', old: 'set', new: undefined }] });
      res.redirect(303, `/admin/institution/${platformKeyOf(req)}?done=logo-removed`);
    });
  },
);

