import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { applySetOptions } from '../../../src/cli/institution.js';
import { DEFAULT_INSTITUTION_SETTINGS } from '../../../src/institution/settings.js';
import { runCliHere, tempDataDir } from '../../helpers/cli.js';

const none = { proctorRole: [], proctorSetting: [] };

describe('institution set: options to settings', () => {
  const cases: { name: string; options: Parameters<typeof applySetOptions>[1]; expected: Record<string, unknown> }[] = [
    { name: 'nothing given keeps everything', options: none, expected: {} },
    { name: 'proctor roles are set, without duplicates', options: { ...none, proctorRole: ['Mentor', 'Mentor', 'urn:x'] }, expected: { proctorRoles: ['Mentor', 'urn:x'] } },
    { name: '--no-proctor-roles clears them', options: { ...none, proctorRoles: false }, expected: { proctorRoles: [] } },
    { name: 'teaching assistants may edit', options: { ...none, taMayEdit: true }, expected: { teachingAssistantsMayEdit: true } },
    { name: 'colours', options: { ...none, primaryColor: '0b5cad' }, expected: { branding: { primary_color: '0b5cad' } } },
    { name: 'proctor permissions', options: { ...none, proctorSetting: ['break_allowed=yes', 'kickout_allowed=no'] }, expected: { proctorSettings: { break_allowed: true, kickout_allowed: false } } },
    { name: 'domain', options: { ...none, domain: 'exams.example.edu' }, expected: { domain: 'exams.example.edu' } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(applySetOptions(DEFAULT_INSTITUTION_SETTINGS, c.options), { ...DEFAULT_INSTITUTION_SETTINGS, ...c.expected });
    });
  }

  it("'' removes an optional value", () => {
    const current = { ...DEFAULT_INSTITUTION_SETTINGS, domain: 'exams.example.edu', branding: { primary_color: '0b5cad' } };
    const next = applySetOptions(current, { ...none, domain: '', primaryColor: '' });
    assert.equal('domain' in next, false);
    assert.deepEqual(next.branding, {});
  });

  it('refuses an unknown proctor setting and a value that is not yes or no', () => {
    assert.throws(() => applySetOptions(DEFAULT_INSTITUTION_SETTINGS, { ...none, proctorSetting: ['fly_allowed=yes'] }), /unknown proctor setting 'fly_allowed'/);
    assert.throws(() => applySetOptions(DEFAULT_INSTITUTION_SETTINGS, { ...none, proctorSetting: ['break_allowed=maybe'] }), /expected yes or no/);
  });
});

describe('npm run cli -- institution set', () => {
  const data = tempDataDir('institution-set');
  after(() => data.remove());
  const cli = (...args: string[]) => runCliHere(data.dir, ['institution', ...args, '--issuer', 'https://canvas.example.edu', '--client-id', '10001']);
  before(async () => {
    const added = await runCliHere(data.dir, ['platform', 'add', '--issuer', 'https://canvas.example.edu', '--client-id', '10001', '--auth-url', 'https://canvas.example.edu/a', '--token-url', 'https://canvas.example.edu/t', '--jwks-url', 'https://canvas.example.edu/j', '--deployment-id', '1']);
    assert.equal(added.status, 0, added.stderr);
  });

  it('saves the settings and keeps what was not named', async () => {
    const first = await cli('set', '--proctor-role', 'http://purl.imsglobal.org/vocab/lis/v2/membership#Mentor', '--ta-may-edit', 'yes');
    assert.equal(first.status, 0, first.stderr);
    const second = await cli('set', '--primary-color', '0b5cad', '--proctor-setting', 'break_allowed=yes');
    assert.equal(second.status, 0, second.stderr);
    const shown = await cli('show', '--json');
    const { settings } = JSON.parse(shown.stdout) as { settings: Record<string, unknown> };
    assert.deepEqual(settings.proctorRoles, ['http://purl.imsglobal.org/vocab/lis/v2/membership#Mentor']);
    assert.equal(settings.teachingAssistantsMayEdit, true);
    assert.deepEqual(settings.branding, { primary_color: '0b5cad' });
    assert.deepEqual(settings.proctorSettings, { break_allowed: true });
  });

  it('refuses a wrong value, naming the field, and changes nothing', async () => {
    const set = await cli('set', '--primary-color', '0b5cad');
    assert.equal(set.status, 0, set.stderr);
    const refused = await cli('set', '--primary-color', 'blue', '--domain', 'https://exams.example.edu/x');
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /nothing was changed/);
    assert.match(refused.stderr, /Primary colour must be 6 hexadecimal digits like 0b5cad/);
    assert.match(refused.stderr, /Exam domain: must be a host name/);
    const { settings } = JSON.parse((await cli('show', '--json')).stdout) as { settings: Record<string, unknown> };
    assert.deepEqual(settings.branding, { primary_color: '0b5cad' });
  });
});
