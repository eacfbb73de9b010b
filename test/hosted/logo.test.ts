import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { detectLogoType, inspectLogo, LOGO_MAX_BYTES, LogoError } from '../../src/hosted/logo-image.js';
import { sanitizeSvg } from '../../src/hosted/svg.js';
import { PNG_1PX } from './support.js';

const text = (s: string) => new TextEncoder().encode(s);

describe('logo files', () => {
  it('recognises PNG, JPEG, WebP and SVG by their content', () => {
    assert.equal(detectLogoType(PNG_1PX), 'image/png');
    assert.equal(detectLogoType(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10])), 'image/jpeg');
    assert.equal(detectLogoType(Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBPVP8 ')])), 'image/webp');
    assert.equal(detectLogoType(text('\uFEFF<?xml version="1.0"?>\n<!-- logo --><svg xmlns="http://www.w3.org/2000/svg"/>')), 'image/svg+xml');
  });

  it('refuses other files, empty files and files over the size limit', () => {
    assert.throws(() => inspectLogo(text('GIF89a....')), LogoError);
    assert.throws(() => inspectLogo(text('<html><svg></svg></html>')), /PNG, JPEG, WebP or SVG/);
    assert.throws(() => inspectLogo(new Uint8Array()), /empty/);
    const big = Buffer.concat([PNG_1PX, Buffer.alloc(LOGO_MAX_BYTES)]);
    assert.throws(() => inspectLogo(big), /at most/);
  });
});

describe('SVG sanitising', () => {
  it('removes scripts, event handlers, javascript: links and foreignObject, keeping the drawing', async () => {
    const dirty = `<?xml version="1.0"?>
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 32" onload="alert(1)">
  <script>alert(2)</script>
  <a href="javascript:alert(3)"><text x="0" y="20">x</text></a>
  <foreignObject><iframe src="https://evil.example"></iframe></foreignObject>
  <rect width="100" height="32" fill="#336699" onclick="alert(4)"/>
  <circle cx="16" cy="16" r="8" style="fill:red"/>
</svg>`;
    const clean = new TextDecoder().decode(await sanitizeSvg(text(dirty)));
    assert.doesNotMatch(clean, /script|onload|onclick|javascript:|foreignObject|iframe|alert/i);
    assert.match(clean, /^<\?xml version="1.0" encoding="UTF-8"\?>\n<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    assert.match(clean, /viewBox="0 0 100 32"/);
    assert.match(clean, /<rect[^>]*fill="#336699"/);
    assert.match(clean, /<circle/);
  });

  it('refuses DTDs and entities, and files that are not SVG', async () => {
    await assert.rejects(sanitizeSvg(text('<!DOCTYPE svg [<!ENTITY a "aaaa">]><svg xmlns="http://www.w3.org/2000/svg">&a;</svg>')), /DOCTYPE/);
    await assert.rejects(sanitizeSvg(text('<script>alert(1)</script>')), /no <svg> element/);
    await assert.rejects(sanitizeSvg(new Uint8Array([0xff, 0xfe, 0x00])), /UTF-8/);
  });
});
