import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { changesBetween, SECRET_PLACEHOLDER } from '../../../src/admin/audit.js';
import { checkColour, checkInstitutionSettings, checkProctorRoles } from '../../../src/institution/validation.js';
import { checkPlatformExists, checkPlatformInput, splitDeploymentIds } from '../../../src/lti/platform-input.js';

const platform = {
  issuer: 'https://canvas.instructure.com',
  clientId: '10000000000001',
  authUrl: 'https://sso.canvaslms.com/api/lti/authorize_redirect',
  tokenUrl: 'https://sso.canvaslms.com/login/oauth2/token',
  jwksUrl: 'https://sso.canvaslms.com/api/lti/security/jwks',
};

describe('shared validation of administrative input', () => {
  it('refuses a platform without a deployment id, naming the field', () => {
    const checked = checkPlatformInput({ ...platform, deploymentIds: '  ' });
    assert.equal(checked.ok, false);
    assert.ok(!checked.ok && checked.problems.some((p) => p.field === 'deploymentIds' && /deployment id is required/i.test(p.message)));
  });

  it('accepts a platform with deployment ids, one per line or comma-separated', () => {
    const checked = checkPlatformInput({ ...platform, deploymentIds: '1:abc\n2:def, 1:abc' });
    assert.ok(checked.ok);
    assert.deepEqual(checked.value.deploymentIds, ['1:abc', '2:def']);
    assert.deepEqual(splitDeploymentIds(['a b', 'c']), ['a', 'b', 'c']);
  });

  it('names each wrong URL with an example', () => {
    const checked = checkPlatformInput({ ...platform, issuer: 'canvas', jwksUrl: '', deploymentIds: ['1'] });
    assert.ok(!checked.ok);
    assert.deepEqual(checked.problems.map((p) => p.field), ['issuer', 'jwksUrl']);
    assert.match(checked.problems[0]!.message, /Issuer must be an absolute https URL such as https:\/\//);
  });

  it('refuses settings for a platform that is not registered, listing the client ids of its issuer', () => {
    const registered = [{ issuer: platform.issuer, clientId: platform.clientId }];
    assert.equal(checkPlatformExists(registered, platform.issuer, platform.clientId), undefined);
    assert.match(checkPlatformExists(registered, platform.issuer, '999')!.message, /registered client ids are 10000000000001/);
    assert.equal(checkPlatformExists(registered, 'https://moodle.example.edu', '1')!.field, 'issuer');
  });

  it('refuses colours not in the expected format, saying the format', () => {
    const checked = checkColour('primaryColor', 'blue');
    assert.ok(!checked.ok);
    assert.match(checked.problems[0]!.message, /Primary colour must be 6 hexadecimal digits like 0b5cad/);
    assert.deepEqual(checkColour('primaryColor', '#0B5CAD'), { ok: true, value: '0b5cad' });
    assert.deepEqual(checkColour('secondaryColor', ''), { ok: true, value: undefined });
  });

  it('refuses a learner role as a proctor role, in any spelling', () => {
    for (const role of ['Learner', 'http://purl.imsglobal.org/vocab/lis/v2/membership#Learner', 'urn:lti:role:ims/lis/Learner', 'http://purl.imsglobal.org/vocab/lis/v2/institution/person#Student']) {
      const checked = checkProctorRoles([role]);
      assert.equal(checked.ok, false, role);
    }
    assert.deepEqual(checkProctorRoles(['Mentor', ' Mentor ', 'Instructor#TeachingAssistant']), { ok: true, value: ['Mentor', 'Instructor#TeachingAssistant'] });
  });

  it('checks whole settings documents: every problem at once, names the field', () => {
    const checked = checkInstitutionSettings({ branding: { primary_color: 'blue', secondary_color: '#112233' }, proctorRoles: ['Learner'], domain: 'https://exams.example.edu/' });
    assert.ok(!checked.ok);
    assert.deepEqual(checked.problems.map((p) => p.field).sort(), ['domain', 'primaryColor', 'proctorRoles']);
    const fine = checkInstitutionSettings({ branding: { primary_color: '#0B5CAD' }, proctorRoles: ['Mentor'] });
    assert.ok(fine.ok);
    assert.deepEqual(fine.value.branding, { primary_color: '0b5cad' });
  });

  it('audit changes list old → new, never a secret', () => {
    const changes = changesBetween({ name: 'A', secret: 'old-secret', same: 1 }, { name: 'B', secret: 'new-secret', same: 1 }, { secretFields: ['secret'] });
    assert.deepEqual(changes, [{ field: 'name', old: 'A', new: 'B' }, { field: 'secret', new: SECRET_PLACEHOLDER }]);
    assert.doesNotMatch(JSON.stringify(changes), /old-secret|new-secret/);
  });
});
