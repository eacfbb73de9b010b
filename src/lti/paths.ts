/** The tool's LTI endpoints (kept apart from provider.ts so that printing a URL does not load ltijs). */
export const LTI_ROUTES = {
  login: '/lti/login',
  launch: '/lti/launch',
  keys: '/lti/keys',
  register: '/lti/register',
  canvasConfig: '/lti/canvas.json',
} as const;
