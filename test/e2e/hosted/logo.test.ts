import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { detectLogoType, inspectLogo, LOGO_MAX_BYTES, LogoError } from '../../../src/hosted/logo-image.js';
import { sanitizeSvg } from '../../../src/hosted/svg.js';
import { PNG_1PX } from '../../helpers/hosted.js';

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

describe('logo dimensions and external references', () => {
  const png = (width: number, height: number) => {
    const header = Buffer.alloc(8 + 25);
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(header, 0);
    header.writeUInt32BE(13, 8);
    header.write('IHDR', 12, 'ascii');
    header.writeUInt32BE(width, 16);
    header.writeUInt32BE(height, 20);
    header.set([8, 6, 0, 0, 0], 24);
    return header;
  };
  const jpeg = (width: number, height: number) =>
    Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0xff, 0xc0, 0x00, 0x11, 0x08, height >> 8, height & 0xff, width >> 8, width & 0xff, 0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01, 0xff, 0xd9]);
  const webp = (width: number, height: number) => {
    // VP8X: 24-bit width−1 and height−1.
    const out = Buffer.alloc(30);
    out.write('RIFF', 0, 'ascii');
    out.writeUInt32LE(22, 4);
    out.write('WEBPVP8X', 8, 'ascii');
    out.writeUInt32LE(10, 16);
    out.writeUIntLE(width - 1, 24, 3);
    out.writeUIntLE(height - 1, 27, 3);
    return out;
  };

  it(`refuses PNG, JPEG and WebP larger than 4096×4096 pixels, whatever their file size`, () => {
    for (const [name, make] of [['png', png], ['jpeg', jpeg], ['webp', webp]] as const) {
      assert.throws(() => inspectLogo(make(60000, 60000)), /60000×60000 pixels; at most 4096×4096/, name);
      assert.throws(() => inspectLogo(make(4097, 32)), /at most 4096×4096/, name);
      assert.equal(inspectLogo(make(400, 32)), `image/${name}`, name);
    }
    assert.equal(inspectLogo(PNG_1PX), 'image/png');
  });

  it('refuses a raster image whose header cannot be read', () => {
    assert.throws(() => inspectLogo(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0])), /damaged/);
  });

  it('sanitised SVGs lose every external reference and keep internal ones', async () => {
    const dirty = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 100 32">
  <style>@import url("https://tracker.example/a.css"); @import 'https://tracker.example/b.css'; .a { fill: url(https://tracker.example/p.svg#g); background: url( 'http://10.0.0.5/x' ) } .b { fill: url(#grad) }</style>
  <defs><linearGradient id="grad"><stop offset="0" stop-color="#123456"/></linearGradient></defs>
  <image href="https://tracker.example/pixel.png" width="1" height="1"/>
  <image xlink:href="http://169.254.169.254/latest/meta-data" width="1" height="1"/>
  <image href="data:image/png;base64,iVBORw0KGgo=" width="1" height="1"/>
  <use xlink:href="https://tracker.example/sprite.svg#logo"/>
  <use href="#shape"/>
  <rect id="shape" class="a" width="10" height="10" fill="url(https://tracker.example/f.svg#g)" style="filter: url(http://tracker.example/f)"/>
  <rect class="b" fill="url(#grad)" width="5" height="5"/>
</svg>`;
    const clean = new TextDecoder().decode(await sanitizeSvg(new TextEncoder().encode(dirty)));
    assert.doesNotMatch(clean, /tracker\.example|10\.0\.0\.5|169\.254|@import/);
    assert.match(clean, /url\(#grad\)/);
    assert.match(clean, /data:image\/png;base64/);
    assert.match(clean, /<rect/);
  });
});
