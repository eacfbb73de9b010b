import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildRegistrationRequest, checkIssuerHost, RegistrationError, type OpenIdConfiguration, type ToolDescription } from '../../../src/lti/dynamic-registration.js';

const tool: ToolDescription = {
  name: 'Proctored exams',
  description: 'Online proctoring',
  publicUrl: new URL('https://proctor.example.edu'),
  loginUrl: 'https://proctor.example.edu/lti/login',
  launchUrl: 'https://proctor.example.edu/lti/launch',
  jwksUrl: 'https://proctor.example.edu/lti/keys',
};
const configuration = (family: string, issuer = 'https://lms.example.edu'): OpenIdConfiguration => ({
  issuer,
  authorization_endpoint: `${issuer}/auth`,
  token_endpoint: `${issuer}/token`,
  jwks_uri: `${issuer}/jwks`,
  registration_endpoint: `${issuer}/register`,
  'https://purl.imsglobal.org/spec/lti-platform-configuration': {
    product_family_code: family,
    messages_supported: [{ type: 'LtiResourceLinkRequest' }, { type: 'LtiDeepLinkingRequest' }],
  },
});
type Message = Record<string, unknown> & { type: string };
const messagesOf = (request: Record<string, unknown>) =>
  (request['https://purl.imsglobal.org/spec/lti-tool-configuration'] as { messages: Message[] }).messages;

describe('dynamic registration request', () => {
  it('asks Canvas to open every placement in a new window', () => {
    const messages = messagesOf(buildRegistrationRequest(tool, configuration('canvas')));
    assert.deepEqual(messages.map((m) => m.type), ['LtiResourceLinkRequest', 'LtiDeepLinkingRequest']);
    for (const message of messages) assert.equal(message['https://canvas.instructure.com/lti/display_type'], 'new_window', message.type);
  });

  it("asks Canvas for its course id (a copied course's quiz list) and the Student View flag", () => {
    const request = buildRegistrationRequest(tool, configuration('canvas'));
    const custom = (request['https://purl.imsglobal.org/spec/lti-tool-configuration'] as { custom_parameters?: Record<string, string> }).custom_parameters;
    assert.deepEqual(custom, { canvas_user_is_test: '$Canvas.user.isFakeStudent', canvas_course_id: '$Canvas.course.id' });
  });

  it('registers the tool URLs, names-and-roles scope and deep linking for Moodle, without Canvas extensions', () => {
    const request = buildRegistrationRequest(tool, configuration('moodle'));
    assert.equal(request.initiate_login_uri, tool.loginUrl);
    assert.deepEqual(request.redirect_uris, [tool.launchUrl]);
    assert.equal(request.jwks_uri, tool.jwksUrl);
    assert.match(String(request.scope), /contextmembership\.readonly/);
    const messages = messagesOf(request);
    assert.deepEqual(messages.map((m) => m.type), ['LtiResourceLinkRequest', 'LtiDeepLinkingRequest']);
    assert.ok(messages.every((m) => Object.keys(m).every((key) => !key.startsWith('https://canvas.instructure.com/'))));
  });

  it("asks Moodle only for what Moodle 5.1 reads: names, Names and Roles, deep linking; no e-mail, no placements, no window", () => {
    const request = buildRegistrationRequest(tool, configuration('moodle'));
    const toolConfiguration = request['https://purl.imsglobal.org/spec/lti-tool-configuration'] as Record<string, unknown>;
    // mod/lti's registration_helper: name claims switch on "share launcher's name", `email` would share addresses.
    assert.deepEqual(toolConfiguration.claims, ['iss', 'sub', 'name', 'given_name', 'family_name']);
    assert.equal(request.scope, 'https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly');
    assert.equal(toolConfiguration.domain, tool.publicUrl.host, 'Moodle checks the domain against the target link URI');
    assert.equal(toolConfiguration.target_link_uri, tool.launchUrl);
    assert.equal(toolConfiguration.custom_parameters, undefined, 'Moodle needs none: its context id is its course id');
    for (const message of messagesOf(request)) {
      assert.deepEqual(Object.keys(message).sort(), ['label', 'target_link_uri', 'type'], `${message.type}: Moodle reads no placements, window or message custom parameters`);
    }
  });

  it('advertises LtiStartProctoring and LtiEndAssessment to a platform that offers them, at the launch URL', () => {
    const offered = configuration('BlackboardLearn');
    offered['https://purl.imsglobal.org/spec/lti-platform-configuration']!.messages_supported!.push({ type: 'LtiStartProctoring' }, { type: 'LtiEndAssessment' });
    const messages = messagesOf(buildRegistrationRequest(tool, offered));
    assert.deepEqual(messages.map((m) => m.type), ['LtiResourceLinkRequest', 'LtiDeepLinkingRequest', 'LtiStartProctoring', 'LtiEndAssessment']);
    for (const message of messages) assert.equal(message.target_link_uri, tool.launchUrl);
  });

  it('refuses an issuer on another host than the configuration URL, and plain http off localhost', () => {
    assert.throws(() => checkIssuerHost('https://lms.example.edu/.well-known/openid-configuration', configuration('moodle', 'https://evil.example')), RegistrationError);
    assert.throws(() => checkIssuerHost('http://lms.example.edu/.well-known/openid-configuration', configuration('moodle', 'http://lms.example.edu')), /https/);
    checkIssuerHost('https://lms.example.edu/.well-known/openid-configuration', configuration('moodle'));
  });
});
