import type { Checked, FieldProblem } from '../values.js';
import type { PlatformInput, PlatformSummary } from './provider.js';

export type { Checked, FieldProblem };

/**
 * Checks of a static platform registration, shared by the admin console and the CLI: each problem names
 * the field and what is expected. A registration without a deployment id would refuse every launch, so
 * at least one is required.
 */
export interface RawPlatformInput {
  issuer?: string;
  clientId?: string;
  name?: string;
  authUrl?: string;
  tokenUrl?: string;
  jwksUrl?: string;
  authorizationServer?: string;
  /** One per entry, or several in one string separated by commas, spaces or new lines. */
  deploymentIds?: string | readonly string[];
}

const MAX_ID_LENGTH = 255;

function httpUrlProblem(field: string, label: string, value: string | undefined, example: string): FieldProblem | undefined {
  const text = value?.trim() ?? '';
  if (!text) return { field, message: `${label} is required: an absolute https URL such as ${example}.`, code: 'required', values: { example } };
  try {
    const url = new URL(text);
    if (url.protocol === 'https:' || url.protocol === 'http:') return undefined;
  } catch {
    // Reported below.
  }
  return { field, message: `${label} must be an absolute https URL such as ${example} (got "${text.slice(0, 100)}").`, code: 'httpsUrl', values: { example, value: text.slice(0, 100) } };
}

/** Deployment ids from a list or a text with one per line (commas and spaces also separate). */
export function splitDeploymentIds(input: string | readonly string[] | undefined): string[] {
  const parts = typeof input === 'string' ? input.split(/[\s,]+/) : (input ?? []).flatMap((entry) => entry.split(/[\s,]+/));
  return [...new Set(parts.map((part) => part.trim()).filter(Boolean))];
}

/** One deployment id: what the LMS shows when the tool is installed (no spaces or commas, at most 255 characters). */
export function checkDeploymentId(value: string | undefined): Checked<string> {
  const text = value?.trim() ?? '';
  if (!text) return { ok: false, problems: [{ field: 'deploymentId', message: 'Deployment id is required: the id the LMS shows for this installation of the tool, such as 1 or 12:8865aa05b4b79b64a91a86042e43af5ea8ae79eb.', code: 'deploymentIdRequired' }] };
  if (/[\s,]/.test(text) || text.length > MAX_ID_LENGTH) {
    return { ok: false, problems: [{ field: 'deploymentId', message: `Deployment id must be one id without spaces or commas, at most ${MAX_ID_LENGTH} characters.`, code: 'deploymentIdFormat', values: { max: MAX_ID_LENGTH } }] };
  }
  return { ok: true, value: text };
}

export function checkPlatformInput(raw: RawPlatformInput): Checked<PlatformInput> {
  const problems: FieldProblem[] = [];
  const push = (problem: FieldProblem | undefined) => {
    if (problem) problems.push(problem);
  };
  push(httpUrlProblem('issuer', 'Issuer', raw.issuer, 'https://canvas.instructure.com'));
  const clientId = raw.clientId?.trim() ?? '';
  if (!clientId) problems.push({ field: 'clientId', message: 'Client id is required: the id the LMS gave the tool, such as 10000000000001 (Canvas developer key) or Vx2tBh0vTnqMzyD (Moodle).', code: 'clientIdRequired' });
  else if (clientId.length > MAX_ID_LENGTH || /\s/.test(clientId)) problems.push({ field: 'clientId', message: `Client id must be one id without spaces, at most ${MAX_ID_LENGTH} characters.`, code: 'clientIdFormat', values: { max: MAX_ID_LENGTH } });
  push(httpUrlProblem('authUrl', 'Authentication request URL (OIDC authorization endpoint)', raw.authUrl, 'https://sso.canvaslms.com/api/lti/authorize_redirect'));
  push(httpUrlProblem('tokenUrl', 'Access token URL', raw.tokenUrl, 'https://sso.canvaslms.com/login/oauth2/token'));
  push(httpUrlProblem('jwksUrl', 'Public keyset URL (JWKS)', raw.jwksUrl, 'https://sso.canvaslms.com/api/lti/security/jwks'));
  if (raw.authorizationServer?.trim()) push(httpUrlProblem('authorizationServer', 'Authorization server', raw.authorizationServer, 'https://moodle.example.edu/mod/lti/token.php'));
  const name = raw.name?.trim();
  if (name && name.length > 200) problems.push({ field: 'name', message: 'Name must be at most 200 characters.', code: 'nameLength' });
  const deploymentIds = splitDeploymentIds(raw.deploymentIds);
  if (deploymentIds.length === 0) {
    problems.push({
      field: 'deploymentIds',
      message: 'At least one deployment id is required: without it every launch is refused. The LMS shows it once the tool is installed (Canvas: the app\'s Deployment Id; Moodle: the tool\'s "Deployment ID"; Brightspace: the deployment\'s id).',
      code: 'deploymentIdsRequired',
    });
  }
  for (const id of deploymentIds) {
    const checked = checkDeploymentId(id);
    if (!checked.ok) problems.push({ ...checked.problems[0]!, field: 'deploymentIds' });
  }
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    value: {
      issuer: raw.issuer!.trim(),
      clientId,
      name: name || undefined,
      authUrl: raw.authUrl!.trim(),
      tokenUrl: raw.tokenUrl!.trim(),
      authorizationServer: raw.authorizationServer?.trim() || undefined,
      key: { jwksUrl: raw.jwksUrl!.trim() },
      deploymentIds,
    },
  };
}

/** Refuses settings or changes for a platform that is not registered (issuer + client id). */
export function checkPlatformExists(platforms: readonly Pick<PlatformSummary, 'issuer' | 'clientId'>[], issuer: string, clientId: string): FieldProblem | undefined {
  if (platforms.some((p) => p.issuer === issuer && p.clientId === clientId)) return undefined;
  const sameIssuer = platforms.filter((p) => p.issuer === issuer).map((p) => p.clientId);
  return {
    field: sameIssuer.length > 0 ? 'clientId' : 'issuer',
    message:
      sameIssuer.length > 0
        ? `No platform ${issuer} is registered with client id ${clientId}; its registered client ids are ${sameIssuer.join(', ')}.`
        : `No platform is registered with issuer ${issuer}. Register it first (platform add), or check the issuer against the platform list.`,
  };
}
