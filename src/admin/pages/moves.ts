import type { Request, Response } from 'express';
import { z } from 'zod';
import { parseBody, parseQuery, textField } from '../../http/request-input.js';
import { platformKey } from '../../lti/identifiers.js';
import type { FieldProblem } from '../../lti/platform-input.js';
import type { PlatformSummary } from '../../lti/provider.js';
import { moveAuditEntry, moveDeployments, movePlatform, MoveRefusedError, type MovePlan } from '../../platforms/move.js';
import { textOf, type Translate } from '../i18n.js';
import { adminPage } from '../page.js';
import type { AdminContext } from '../registry.js';

const DEPLOYMENT_FIELD = 'deployment:';

interface MoveForm {
  from: string;
  to: string;
  /** Old deployment id → new one, as chosen (empty: let the move decide). */
  deployments: Record<string, string>;
}

/** The form as posted: both registrations' keys, and one `deployment:<old id>` field per deployment of the old one. */
const MOVE_FORM = z.looseObject({ from: textField, to: textField }).transform(({ from, to, ...fields }): MoveForm => {
  const deployments: Record<string, string> = {};
  for (const [name, value] of Object.entries(fields)) {
    if (name.startsWith(DEPLOYMENT_FIELD) && typeof value === 'string' && value) deployments[name.slice(DEPLOYMENT_FIELD.length)] = value;
  }
  return { from, to, deployments };
});

/** The two registrations the form names, or the problems with it (the console's words). */
function chosenPlatforms(t: Translate, platforms: PlatformSummary[], form: MoveForm): { from: PlatformSummary; to: PlatformSummary } | FieldProblem[] {
  const find = (key: string) => platforms.find((p) => platformKey(p.issuer, p.clientId) === key);
  const from = find(form.from);
  const to = find(form.to);
  const problems: FieldProblem[] = [];
  if (!from) problems.push({ field: 'from', message: t('admin:moves.problems.from') });
  if (!to) problems.push({ field: 'to', message: t('admin:moves.problems.to') });
  if (from && to && from === to) problems.push({ field: 'to', message: t('admin:moves.problems.same') });
  return from && to && problems.length === 0 ? { from, to } : problems;
}

async function renderChoice(context: AdminContext, req: Request, res: Response, form: MoveForm, problems: FieldProblem[] = [], newIssuer?: string) {
  const platforms = (await context.lti.platforms.list()).map((p) => ({ ...p, key: platformKey(p.issuer, p.clientId) }));
  // From a refused launch that looks like a platform at a new address: its new issuer, chosen once registered.
  const arrived = newIssuer === undefined ? undefined : platforms.find((p) => p.issuer === newIssuer && p.key !== form.from);
  const chosen = arrived && !form.to ? { ...form, to: arrived.key } : form;
  context.render(req, res, 'admin/moves/index', { title: textOf(res)('admin:moves.navTitle'), platforms, form: chosen, problems, unregisteredIssuer: newIssuer !== undefined && !arrived ? newIssuer : undefined });
}

interface Preview {
  plan?: MovePlan;
  refusals: string[];
}

async function preview(context: AdminContext, from: PlatformSummary, to: PlatformSummary, deployments: Record<string, string>, dryRun: boolean): Promise<Preview> {
  try {
    const plan = await movePlatform(context.db, { from, to, deployments }, { pseudonymSecret: context.pseudonyms, dryRun });
    return { plan, refusals: [] };
  } catch (error) {
    if (error instanceof MoveRefusedError) return { refusals: error.problems };
    throw error;
  }
}

/**
 * Moving a platform to its new registration (new issuer or client id): choose both, see a dry run of what
 * would move (counts, deployment mapping), then confirm. The same service as `proctor-lti platform move`:
 * one transaction, all or nothing, audited.
 */
export const movesPage = adminPage(
  { id: 'moves', path: '/moves', navOrder: 15 },
  (routes, context) => {
    routes.get('/', async (req, res) => {
      const query = parseQuery(z.object({ from: textField, newIssuer: textField }), req);
      await renderChoice(context, req, res, { from: query.from, to: '', deployments: {} }, [], query.newIssuer || undefined);
    });

    const renderPreview = async (req: Request, res: Response, form: MoveForm, confirm: boolean) => {
      const platforms = await context.lti.platforms.list();
      const chosen = chosenPlatforms(textOf(res), platforms, form);
      if (Array.isArray(chosen)) {
        res.status(400);
        await renderChoice(context, req, res, form, chosen);
        return;
      }
      const { from, to } = chosen;
      const result = await preview(context, from, to, form.deployments, !confirm);
      if (confirm && result.plan) {
        await context.recordChange(req, moveAuditEntry(from, to, result.plan));
        res.redirect(303, `/admin/platforms/${platformKey(to.issuer, to.clientId)}?done=platform-moved`);
        return;
      }
      if (result.refusals.length > 0) res.status(400);
      context.render(req, res, 'admin/moves/preview', {
        title: textOf(res)('admin:moves.preview.title'),
        from,
        to,
        form,
        deployments: await moveDeployments(context.db, from, to),
        plan: result.plan,
        refusals: result.refusals,
        deploymentField: DEPLOYMENT_FIELD,
        problems: [],
      });
    };

    routes.post('/preview', async (req, res) => {
      await renderPreview(req, res, parseBody(MOVE_FORM, req), false);
    });

    routes.post('/', async (req, res) => {
      await renderPreview(req, res, parseBody(MOVE_FORM, req), true);
    });
  },
);
