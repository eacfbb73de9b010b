import type { Request, Response } from 'express';
import { z } from 'zod';
import { platformKey } from '../../lti/identifiers.js';
import { LTI_ROUTES, type PlatformSummary } from '../../lti/provider.js';
import { checkDeploymentId, checkPlatformInput, type FieldProblem } from '../../lti/platform-input.js';
import { platformActivityKey } from '../../lti/platform-activity.js';
import { presetEndpoints } from '../../lti/platform-presets.js';
import { createRegistrationLinks } from '../../lti/registration-links.js';
import { NotFoundError } from '../../http/errors.js';
import { parseBody, parseParams, parseQuery, pathParam, textField, textList } from '../../http/request-input.js';
import { localizedProblem, textOf } from '../i18n.js';
import { adminPage, type AdminRoutes } from '../page.js';
import type { AdminContext } from '../registry.js';
import { checklistFamilyOf, createSetupChecklistStore, SETUP_CHECKLISTS } from '../setup-checklist.js';

/** The LMSs the static registration form has help for (views/admin/platforms/lms-help.ejs). */
export const LMS_FAMILIES = ['canvas', 'moodle', 'brightspace', 'blackboard', 'openedx', 'sakai'] as const;
/** An LMS the form has help for; anything else gets Canvas's. */
const LMS_FAMILY = z.enum(LMS_FAMILIES).catch('canvas');

const PLATFORM_PARAMS = z.object({ key: pathParam });
/** The platform key of a `/:key` route of the console. */
export const platformKeyOf = (req: Request): string => parseParams(PLATFORM_PARAMS, req).key;

const NEW_PLATFORM_FORM = z.object({
  lms: textField,
  name: textField,
  issuer: textField,
  clientId: textField,
  authUrl: textField,
  tokenUrl: textField,
  jwksUrl: textField,
  authorizationServer: textField,
  deploymentIds: textField,
});
/** A refused launch, as its confirmation and dismissal forms (and the link to the confirmation) name it. */
const REFUSED_LAUNCH = z.object({ issuer: textField, clientId: textField, deploymentId: textField });
const REFUSED_ACCEPT = REFUSED_LAUNCH.extend({ name: textField });

/** The name a client id of a registered LMS is offered under: its LMS's name and the client id, unlike any other. */
const nameForClient = (template: Pick<PlatformSummary, 'name'>, clientId: string) => `${template.name} (client id ${clientId})`.slice(0, 200);
const DEPLOYMENT_FORM = z.object({ deploymentId: textField });
const ACTIVE_FORM = z.object({ active: textField });
const CHECKLIST_FORM = z.object({ done: textList });
const CHECKLIST_SHOWN_FORM = z.object({ dismissed: textField });
export const describePlatform = (p: Pick<PlatformSummary, 'issuer' | 'clientId'>) => `${p.issuer} (client id ${p.clientId})`;

export async function findPlatform(context: AdminContext, key: string): Promise<PlatformSummary> {
  const platform = (await context.lti.platforms.list()).find((p) => platformKey(p.issuer, p.clientId) === key);
  if (!platform) throw new NotFoundError('platform');
  return platform;
}

/** The values an LMS administrator pastes into the LMS. */
export function toolValues(context: AdminContext) {
  return {
    loginUrl: context.toolUrl(LTI_ROUTES.login),
    redirectUri: context.toolUrl(LTI_ROUTES.launch),
    jwksUrl: context.toolUrl(LTI_ROUTES.keys),
    canvasConfigUrl: context.toolUrl(LTI_ROUTES.canvasConfig),
    toolUrl: context.toolUrl(''),
  };
}

/**
 * Platforms (LMS registrations): the list with status, deployments and last launch; static registration
 * with per-LMS help; dynamic-registration links; deployment ids; activation and removal; launches refused
 * for an unknown client id or deployment, each fixed in one confirmed step.
 */
export const platformsPage = adminPage(
  { id: 'platforms', path: '/platforms', navOrder: 10 },
  (routes, context) => {
    registrationRoutes(routes, context);
    refusedLaunchRoutes(routes, context);
    platformRoutes(routes, context);
  },
);

/** The list, static registration with per-LMS help, and dynamic-registration links. */
function registrationRoutes(routes: AdminRoutes, context: AdminContext): void {
  const registrationLinks = createRegistrationLinks(context.db);

  routes.get('/', async (req, res) => {
    const platforms = await context.lti.platforms.list();
    const lastLaunches = await context.platformActivity.lastLaunches();
    const refused = await context.refusedRegistrations.list();
    context.render(req, res, 'admin/platforms/list', {
      title: textOf(res)('admin:platforms.list.title'),
      platforms: platforms.map((p) => ({ ...p, key: platformKey(p.issuer, p.clientId), lastLaunch: lastLaunches.get(platformActivityKey(p.issuer, p.clientId)) })),
      refused: refused.map((r) => {
        // A launch of an unknown issuer that looks like a registered platform: the LMS at a new address, to move.
        const like = r.looksLike && platforms.find((p) => p.issuer === r.looksLike?.issuer && p.clientId === r.looksLike.clientId);
        return { ...r, knownClient: platforms.some((p) => p.issuer === r.issuer && p.clientId === r.clientId), movedFrom: like ? { name: like.name, key: platformKey(like.issuer, like.clientId) } : undefined };
      }),
      registrationTtlSeconds: context.config.lti.registrationLinkTtlSeconds,
    });
  });

  const renderNew = (req: Request, res: Response, values: Record<string, string>, problems: FieldProblem[] = []) => {
    const lms = LMS_FAMILY.parse(values.lms);
    context.render(req, res, 'admin/platforms/new', { title: textOf(res)('admin:platforms.new.title'), lms, families: LMS_FAMILIES, values, problems, tool: toolValues(context) });
  };

  routes.get('/new', (req, res) => {
    const query = parseQuery(z.object({ lms: z.string().default('canvas') }), req);
    // Learn's endpoints are the developer portal's, the same for every school: the form starts with them.
    const preset = query.lms === 'blackboard' ? presetEndpoints('learn', {}) : {};
    renderNew(req, res, { ...preset, ...query });
  });

  routes.post('/new', async (req, res) => {
    const values = parseBody(NEW_PLATFORM_FORM, req);
    const checked = checkPlatformInput(values);
    if (!checked.ok) {
      res.status(400);
      renderNew(req, res, values, checked.problems.map((problem) => localizedProblem(textOf(res), problem)));
      return;
    }
    const input = checked.value;
    if ((await context.lti.platforms.list()).some((p) => p.issuer === input.issuer && p.clientId === input.clientId)) {
      res.status(409);
      renderNew(req, res, values, [{ field: 'clientId', message: textOf(res)('admin:problems.alreadyRegistered', { issuer: input.issuer, clientId: input.clientId }) }]);
      return;
    }
    await context.lti.platforms.register(input);
    await createSetupChecklistStore(context.db).noteRegistered(input.issuer, input.clientId, undefined);
    await context.refusedRegistrations.resolved({ issuer: input.issuer, clientId: input.clientId });
    await context.recordChange(req, {
      action: 'platform.add',
      target: describePlatform(input),
      changes: [
        { field: 'name', new: input.name },
        { field: 'authUrl', new: input.authUrl },
        { field: 'tokenUrl', new: input.tokenUrl },
        { field: 'jwksUrl', new: 'jwksUrl' in input.key ? input.key.jwksUrl : undefined },
        { field: 'deploymentIds', new: input.deploymentIds.join(', ') },
      ].filter((change) => change.new !== undefined),
    });
    res.redirect(303, `/admin/platforms/${platformKey(input.issuer, input.clientId)}?done=platform-added`);
  });

  routes.post('/register-link', async (req, res) => {
    const { token, expiresAt } = await registrationLinks.issue(context.config.lti.registrationLinkTtlSeconds);
    // The link itself is a credential: the audit log records only that one was issued, and until when.
    await context.recordChange(req, { action: 'platform.register_link', changes: [{ field: 'expiresAt', new: expiresAt.toISOString() }] });
    context.render(req, res, 'admin/platforms/register-link', {
      title: textOf(res)('admin:platforms.link.title'),
      link: `${context.toolUrl(LTI_ROUTES.register)}?link=${token}`,
      expiresAt,
    });
  });
}

/** Launches refused for an unknown client id or deployment of a known LMS: added after confirmation, or dismissed. */
function refusedLaunchRoutes(routes: AdminRoutes, context: AdminContext): void {
  routes.get('/refused/confirm', async (req, res) => {
    const { issuer, clientId, deploymentId } = parseQuery(REFUSED_LAUNCH, req);
    const platforms = await context.lti.platforms.list();
    const refused = (await context.refusedRegistrations.list(500)).find((r) => r.issuer === issuer && r.clientId === clientId && (r.deploymentId ?? '') === deploymentId);
    if (!refused) throw new NotFoundError('refused launch');
    const existing = platforms.find((p) => p.issuer === issuer && p.clientId === clientId);
    const template = platforms.find((p) => p.issuer === issuer);
    const name = template ? nameForClient(template, clientId) : '';
    context.render(req, res, 'admin/platforms/refused-confirm', { title: textOf(res)('admin:platforms.confirm.pageTitle'), refused, existing, template, name, problems: [] });
  });

  routes.post('/refused/accept', async (req, res) => {
    const { issuer, clientId, deploymentId, name: typedName } = parseBody(REFUSED_ACCEPT, req);
    const deployment = checkDeploymentId(deploymentId);
    const platforms = await context.lti.platforms.list();
    const existing = platforms.find((p) => p.issuer === issuer && p.clientId === clientId);
    const template = platforms.find((p) => p.issuer === issuer);
    const refused = (await context.refusedRegistrations.list(500)).find((r) => r.issuer === issuer && r.clientId === clientId);
    if (!refused || !template) throw new NotFoundError('refused launch');
    const name = typedName.trim() || nameForClient(template, clientId);
    const problems = deployment.ok ? [] : deployment.problems.map((problem) => localizedProblem(textOf(res), problem));
    if (!existing) {
      // A second platform under the name of another would be told apart by its client id alone.
      const namesake = platforms.find((p) => p.name.trim().toLowerCase() === name.toLowerCase());
      if (namesake) problems.push({ field: 'name', message: textOf(res)('admin:platforms.confirm.nameTaken', { name, issuer: namesake.issuer, clientId: namesake.clientId }) });
      else if (name.length > 200) problems.push({ field: 'name', message: textOf(res)('admin:problems.nameLength') });
    }
    if (!deployment.ok || problems.length > 0) {
      res.status(400);
      context.render(req, res, 'admin/platforms/refused-confirm', { title: textOf(res)('admin:platforms.confirm.pageTitle'), refused, existing, template, name, problems });
      return;
    }
    if (existing) {
      await context.lti.deployments.add(issuer, clientId, deployment.value);
      await context.recordChange(req, { action: 'deployment.add', target: describePlatform(existing), changes: [{ field: 'deploymentIds', old: existing.deploymentIds.join(', '), new: [...existing.deploymentIds, deployment.value].join(', ') }] });
    } else {
      // Another client id of a registered LMS: the same endpoints and keys, as Canvas gives every developer key.
      const key = template.jwksUrl;
      if (!key) throw new NotFoundError('key set URL of the registered platform');
      await context.lti.platforms.register({ issuer, clientId, name, authUrl: template.authUrl, tokenUrl: template.tokenUrl, key: { jwksUrl: key }, deploymentIds: [deployment.value] });
      await context.recordChange(req, { action: 'platform.add', target: describePlatform({ issuer, clientId }), changes: [{ field: 'copiedFrom', new: describePlatform(template) }, { field: 'deploymentIds', new: deployment.value }] });
    }
    await context.refusedRegistrations.resolved({ issuer, clientId, deploymentId: deployment.value });
    res.redirect(303, `/admin/platforms/${platformKey(issuer, clientId)}?done=${existing ? 'deployment-added' : 'client-added'}`);
  });

  routes.post('/refused/dismiss', async (req, res) => {
    const form = parseBody(REFUSED_LAUNCH, req);
    const registration = { issuer: form.issuer, clientId: form.clientId, deploymentId: form.deploymentId || undefined };
    if (await context.refusedRegistrations.dismiss(registration)) {
      await context.recordChange(req, { action: 'refusal.dismiss', target: `${describePlatform(registration)}${registration.deploymentId ? `, deployment ${registration.deploymentId}` : ''}` });
    }
    res.redirect(303, '/admin/platforms?done=refusal-dismissed');
  });
}

/** One platform: its values, deployment ids, activation and removal. */
function platformRoutes(routes: AdminRoutes, context: AdminContext): void {
  const checklists = createSetupChecklistStore(context.db);
  /** The platform's LMS setup checklist: its LMS's items, which are ticked off, and whether it was dismissed. */
  const checklistOf = async (platform: PlatformSummary) => {
    const state = await checklists.get(platform.issuer, platform.clientId);
    const family = checklistFamilyOf({ issuer: platform.issuer, authUrl: platform.authUrl, productFamily: state.productFamily });
    const items = SETUP_CHECKLISTS[family].map((id) => ({ id, done: state.done.includes(id) }));
    return { family, items, dismissed: state.dismissed, complete: items.every((item) => item.done) };
  };
  const renderDetail = async (req: Request, res: Response, platform: PlatformSummary, problems: FieldProblem[] = [], values: Record<string, string> = {}) => {
    const key = platformKey(platform.issuer, platform.clientId);
    const lastLaunch = (await context.platformActivity.lastLaunches()).get(platformActivityKey(platform.issuer, platform.clientId));
    const checklist = await checklistOf(platform);
    context.render(req, res, 'admin/platforms/detail', { title: platform.name, platform, key, lastLaunch, tool: toolValues(context), problems, values, checklist });
  };

  routes.post('/:key/checklist', async (req, res) => {
    const platform = await findPlatform(context, platformKeyOf(req));
    const ticked = parseBody(CHECKLIST_FORM, req).done;
    const { items } = await checklistOf(platform);
    const done = items.map((item) => item.id).filter((id) => ticked.includes(id));
    await checklists.setDone(platform.issuer, platform.clientId, done);
    res.redirect(303, `/admin/platforms/${platformKeyOf(req)}?done=checklist-saved#checklist-heading`);
  });

  routes.post('/:key/checklist/shown', async (req, res) => {
    const platform = await findPlatform(context, platformKeyOf(req));
    const dismissed = parseBody(CHECKLIST_SHOWN_FORM, req).dismissed === 'yes';
    await checklists.setDismissed(platform.issuer, platform.clientId, dismissed);
    res.redirect(303, `/admin/platforms/${platformKeyOf(req)}?done=${dismissed ? 'checklist-dismissed' : 'checklist-shown'}`);
  });

  routes.get('/:key', async (req, res) => {
    await renderDetail(req, res, await findPlatform(context, platformKeyOf(req)));
  });

  routes.post('/:key/deployments', async (req, res) => {
    const platform = await findPlatform(context, platformKeyOf(req));
    const value = parseBody(DEPLOYMENT_FORM, req).deploymentId;
    const checked = checkDeploymentId(value);
    if (!checked.ok) {
      res.status(400);
      await renderDetail(req, res, platform, checked.problems.map((problem) => localizedProblem(textOf(res), problem)), { deploymentId: value });
      return;
    }
    if (!platform.deploymentIds.includes(checked.value)) {
      await context.lti.deployments.add(platform.issuer, platform.clientId, checked.value);
      await context.refusedRegistrations.resolved({ issuer: platform.issuer, clientId: platform.clientId, deploymentId: checked.value });
      await context.recordChange(req, { action: 'deployment.add', target: describePlatform(platform), changes: [{ field: 'deploymentIds', old: platform.deploymentIds.join(', '), new: [...platform.deploymentIds, checked.value].join(', ') }] });
    }
    res.redirect(303, `/admin/platforms/${platformKeyOf(req)}?done=deployment-added`);
  });

  routes.post('/:key/deployments/remove', async (req, res) => {
    const platform = await findPlatform(context, platformKeyOf(req));
    const { deploymentId } = parseBody(DEPLOYMENT_FORM, req);
    if (await context.lti.deployments.remove(platform.issuer, platform.clientId, deploymentId)) {
      await context.recordChange(req, { action: 'deployment.remove', target: describePlatform(platform), changes: [{ field: 'deploymentIds', old: platform.deploymentIds.join(', '), new: platform.deploymentIds.filter((id) => id !== deploymentId).join(', ') }] });
    }
    res.redirect(303, `/admin/platforms/${platformKeyOf(req)}?done=deployment-removed`);
  });

  routes.post('/:key/active', async (req, res) => {
    const platform = await findPlatform(context, platformKeyOf(req));
    const active = parseBody(ACTIVE_FORM, req).active === 'yes';
    if (active !== platform.active) {
      await context.lti.platforms.setActive(platform.issuer, platform.clientId, active);
      await context.recordChange(req, { action: active ? 'platform.activate' : 'platform.deactivate', target: describePlatform(platform), changes: [{ field: 'active', old: String(platform.active), new: String(active) }] });
    }
    res.redirect(303, `/admin/platforms/${platformKeyOf(req)}?done=${active ? 'platform-activated' : 'platform-deactivated'}`);
  });

  routes.get('/:key/remove', async (req, res) => {
    const platform = await findPlatform(context, platformKeyOf(req));
    context.render(req, res, 'admin/platforms/remove', { title: textOf(res)('admin:platforms.remove.pageTitle', { name: platform.name }), platform, key: platformKeyOf(req) });
  });

  routes.post('/:key/remove', async (req, res) => {
    const platform = await findPlatform(context, platformKeyOf(req));
    await context.lti.platforms.remove(platform.issuer, platform.clientId);
    await checklists.remove(platform.issuer, platform.clientId);
    await context.recordChange(req, {
      action: 'platform.remove',
      target: describePlatform(platform),
      changes: [{ field: 'name', old: platform.name }, { field: 'deploymentIds', old: platform.deploymentIds.join(', ') }],
    });
    res.redirect(303, '/admin/platforms?done=platform-removed');
  });
}
