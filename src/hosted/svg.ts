import { LogoError, LOGO_MAX_BYTES } from './logo-image.js';
import { messageOf } from '../values.js';

const SVG_NS = 'http://www.w3.org/2000/svg';

/**
 * An uploaded SVG made safe to serve from the tool's own origin: DOMPurify's SVG profile (no scripts,
 * event handlers, javascript: URLs, foreignObject), re-serialised as well-formed XML with its namespace.
 * DTDs are refused outright (entity expansion). jsdom and DOMPurify load only when an SVG is uploaded.
 */
// Anything that would make a viewer fetch from elsewhere: tracking, mixed content, or a server-side fetch
// should the SVG ever be rendered by a tool. Only references inside the document (`#id`) and embedded
// raster images (data:image/png|jpeg|webp|gif) stay.
const EXTERNAL_URL_IN_CSS = /url\(\s*(?!['"]?\s*#)[^)]*\)/gi;
const CSS_IMPORT = /@import[^;]*;?/gi;
const EMBEDDED_IMAGE = /^data:image\/(png|jpeg|webp|gif)[;,]/i;

/** Removes every reference to another document from an SVG tree. */
export function removeExternalReferences(root: Element): void {
  for (const element of [root, ...root.querySelectorAll('*')]) {
    if (element.localName === 'style') {
      element.textContent = (element.textContent ?? '').replace(CSS_IMPORT, '').replace(EXTERNAL_URL_IN_CSS, 'none');
    }
    for (const attribute of [...element.attributes]) {
      const value = attribute.value.trim();
      if (attribute.localName === 'href' || attribute.localName === 'src') {
        if (!value.startsWith('#') && !(element.localName === 'image' && EMBEDDED_IMAGE.test(value))) element.removeAttributeNode(attribute);
      } else if (/url\(|@import/i.test(value)) {
        element.setAttributeNS(attribute.namespaceURI, attribute.name, value.replace(CSS_IMPORT, '').replace(EXTERNAL_URL_IN_CSS, 'none'));
      }
    }
  }
}

export async function sanitizeSvg(bytes: Uint8Array): Promise<Uint8Array> {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\uFEFF/, '');
  } catch {
    throw new LogoError('the SVG logo is not valid UTF-8');
  }
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw new LogoError('SVG logos with a DOCTYPE or entities are refused');

  const [{ JSDOM }, { default: createDOMPurify }] = await Promise.all([import('jsdom'), import('dompurify')]);
  const { window } = new JSDOM('');
  try {
    const purify = createDOMPurify(window);
    const fragment = purify.sanitize(text.replace(/^\s*<\?xml[^>]*\?>/, ''), {
      USE_PROFILES: { svg: true, svgFilters: true },
      FORBID_TAGS: ['foreignObject', 'a', 'script', 'iframe', 'embed', 'object'],
      RETURN_DOM_FRAGMENT: true,
    });
    const root = [...fragment.children].find((element) => element.localName === 'svg' && element.namespaceURI === SVG_NS);
    if (!root) throw new LogoError('the SVG logo has no <svg> element left after removing unsafe content');
    removeExternalReferences(root);
    const xml = new window.XMLSerializer().serializeToString(root);
    // Parse it back as XML: a browser shows an SVG image only when it is well-formed.
    const check = new JSDOM(xml, { contentType: 'image/svg+xml' });
    check.window.close();
    const out = new TextEncoder().encode(`<?xml version="1.0" encoding="UTF-8"?>\n${xml}`);
    if (out.length > LOGO_MAX_BYTES) throw new LogoError(`the sanitised SVG is larger than ${LOGO_MAX_BYTES} bytes`);
    return out;
  } catch (error) {
    if (error instanceof LogoError) throw error;
    throw new LogoError(`the SVG logo could not be read: ${messageOf(error)}`);
  } finally {
    window.close();
  }
}
