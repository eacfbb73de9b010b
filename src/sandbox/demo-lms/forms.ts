/** Reads the auto-submitting forms the demo LMS (and similar LTI pages) answer with: for tests and scripted flows. */
export interface AutoSubmitForm {
  action: string;
  method: string;
  target?: string;
  fields: Record<string, string>;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

export function decodeHtml(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, entity: string) => {
    if (entity[0] === '#') {
      const code = entity[1] === 'x' || entity[1] === 'X' ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10);
      return Number.isFinite(code) ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[entity.toLowerCase()] ?? whole;
  });
}

function attributes(tag: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const match of tag.matchAll(/([a-zA-Z_:][-a-zA-Z0-9_:.]*)\s*=\s*("([^"]*)"|'([^']*)')/g)) {
    const name = match[1];
    if (name) found[name.toLowerCase()] = decodeHtml(match[3] ?? match[4] ?? '');
  }
  return found;
}

/** The first form marked `data-autosubmit` (else the first form) with its hidden inputs, or undefined. */
export function parseAutoSubmitForm(html: string): AutoSubmitForm | undefined {
  const forms = [...html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/gi)];
  const chosen = forms.find((form) => /\bdata-autosubmit\b/i.test(form[1] ?? '')) ?? forms[0];
  if (!chosen) return undefined;
  const formAttributes = attributes(chosen[1] ?? '');
  const fields: Record<string, string> = {};
  for (const input of (chosen[2] ?? '').matchAll(/<input\b([^>]*)>/gi)) {
    const attrs = attributes(input[1] ?? '');
    if (attrs.type === 'hidden' && attrs.name !== undefined) fields[attrs.name] = attrs.value ?? '';
  }
  return {
    action: formAttributes.action ?? '',
    method: (formAttributes.method ?? 'get').toLowerCase(),
    target: formAttributes.target,
    fields,
  };
}
