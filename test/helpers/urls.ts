/** The path and query of an absolute URL: what supertest requests of the app under test. */
export function pathOf(url: string): string {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
}

/** The value of the hidden form field `name` in an HTML page ('' where there is none). */
export function hiddenField(html: string, name: string): string {
  return new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '';
}
