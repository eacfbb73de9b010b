import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { checkColour, checkExtensionAllowlist, checkProctorRoles } from '../../../src/institution/validation.js';
import { checkPlatformExists, checkPlatformInput, type FieldProblem } from '../../../src/lti/platform-input.js';
import { runCliHere, tempDataDir } from '../../helpers/cli.js';

const ISSUER = 'https://moodle.shared.example.edu';
const CLIENT_ID = 'shared-1';
const REGISTERED = [{ issuer: ISSUER, clientId: CLIENT_ID }];
const platform = ['--issuer', ISSUER, '--client-id', CLIENT_ID];
const endpoints = ['--auth-url', `${ISSUER}/a`, '--token-url', `${ISSUER}/t`, '--jwks-url', `${ISSUER}/j`];
const LEARNER = 'http://purl.imsglobal.org/vocab/lis/v2/membership#Learner';

const messageOf = (checked: { ok: true } | { ok: false; problems: FieldProblem[] }) => {
  assert.equal(checked.ok, false);
  return (checked as { problems: FieldProblem[] }).problems[0]!.message;
};

/**
 * Every command that changes data refuses what the console refuses, with the console's own message (the
 * expected text comes from the shared check the console calls), and changes nothing.
 */
describe("CLI refusals use the console's validation", () => {
  const data = tempDataDir('shared-validation');
  after(() => data.remove());
  const cli = (...args: string[]) => runCliHere(data.dir, args);
  const gif = join(data.dir, 'logo.gif');

  before(async () => {
    const added = await cli('platform', 'add', ...platform, ...endpoints, '--deployment-id', '1');
    assert.equal(added.status, 0, added.stderr);
    writeFileSync(gif, 'GIF89a\x01\x00\x01\x00');
  });

  const unknownIssuer = checkPlatformExists(REGISTERED, 'https://nowhere.example.edu', CLIENT_ID)!.message;
  const unknownClient = checkPlatformExists(REGISTERED, ISSUER, 'nope')!.message;
  const cases: Array<{ name: string; args: string[]; message: string }> = [
    { name: 'institution set for an issuer that is not registered', args: ['institution', 'set', '--issuer', 'https://nowhere.example.edu', '--client-id', CLIENT_ID, '--ta-may-edit', 'yes'], message: unknownIssuer },
    { name: 'institution set for a client id that is not registered', args: ['institution', 'set', '--issuer', ISSUER, '--client-id', 'nope', '--ta-may-edit', 'yes'], message: unknownClient },
    { name: 'institution logo for a platform that is not registered', args: ['institution', 'logo', '--issuer', ISSUER, '--client-id', 'nope', '--remove'], message: unknownClient },
    { name: 'institution allowlist for a platform that is not registered', args: ['institution', 'allowlist', '--issuer', ISSUER, '--client-id', 'nope', '--clear'], message: unknownClient },
    { name: 'account use for a platform that is not registered', args: ['account', 'use', '--issuer', ISSUER, '--client-id', 'nope', '--account', 'default'], message: unknownClient },
    { name: 'platform remove of a platform that is not registered', args: ['platform', 'remove', '--issuer', 'https://nowhere.example.edu', '--client-id', CLIENT_ID], message: unknownIssuer },
    { name: 'a Learner proctor role', args: ['institution', 'set', ...platform, '--proctor-role', LEARNER], message: messageOf(checkProctorRoles([LEARNER])) },
    { name: 'a colour that is a name', args: ['institution', 'set', ...platform, '--primary-color', 'blue'], message: messageOf(checkColour('primaryColor', 'blue')) },
    { name: 'a colour of three digits', args: ['institution', 'set', ...platform, '--secondary-color', 'fff'], message: messageOf(checkColour('secondaryColor', 'fff')) },
    { name: 'an extension id in no known format', args: ['institution', 'allowlist', ...platform, 'not-an-extension'], message: messageOf(checkExtensionAllowlist(['not-an-extension'])) },
    { name: 'a logo that is a GIF', args: ['institution', 'logo', ...platform, gif], message: 'The logo was not saved: ' },
    { name: 'platform add without a deployment id', args: ['platform', 'add', '--issuer', ISSUER, '--client-id', 'shared-2', ...endpoints], message: messageOf(checkPlatformInput({ issuer: ISSUER, clientId: 'shared-2', authUrl: `${ISSUER}/a`, tokenUrl: `${ISSUER}/t`, jwksUrl: `${ISSUER}/j` })) },
    { name: 'platform add with an issuer that is not a URL', args: ['platform', 'add', '--issuer', 'moodle', '--client-id', 'shared-2', ...endpoints, '--deployment-id', '1'], message: messageOf(checkPlatformInput({ issuer: 'moodle', clientId: 'shared-2', authUrl: `${ISSUER}/a`, tokenUrl: `${ISSUER}/t`, jwksUrl: `${ISSUER}/j`, deploymentIds: ['1'] })) },
  ];

  for (const c of cases) {
    it(`refuses ${c.name}`, async () => {
      const result = await cli(...c.args);
      assert.equal(result.status, 1, result.stdout);
      assert.ok(result.stderr.includes(c.message), `expected «${c.message}» in:\n${result.stderr}`);
    });
  }

  it('changed nothing', async () => {
    const shown = await cli('institution', 'show', ...platform, '--json');
    const { settings, logo } = JSON.parse(shown.stdout) as { settings: Record<string, unknown>; logo: unknown };
    assert.deepEqual(settings.proctorRoles, []);
    assert.deepEqual(settings.branding, {});
    assert.deepEqual(settings.extensionAllowlist, []);
    assert.equal(logo, null);
    const platforms = JSON.parse((await cli('platform', 'list', '--json')).stdout) as unknown[];
    assert.equal(platforms.length, 1);
    const audit = JSON.parse((await cli('audit', '--json')).stdout) as Array<{ action: string }>;
    assert.deepEqual(audit.map((entry) => entry.action), ['platform.add']);
  });
});
