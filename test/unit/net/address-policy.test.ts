import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addressRefusal, ipLiteralOf } from '../../../src/net/address-policy.js';
import { schemeRefusal } from '../../../src/net/guarded-http.js';

const PRODUCTION = { allowLoopback: false };
const DEVELOPMENT = { allowLoopback: true };

describe('outbound address policy (address literals)', () => {
  // [address, refusal in production, refusal in development]
  const TABLE: Array<[string, string | undefined, string | undefined]> = [
    ['93.184.215.14', undefined, undefined],
    ['8.8.8.8', undefined, undefined],
    ['2001:4860:4860::8888', undefined, undefined],
    ['::ffff:8.8.8.8', undefined, undefined],
    ['127.0.0.1', 'loopback', undefined],
    ['127.255.255.254', 'loopback', undefined],
    ['::1', 'loopback', undefined],
    ['[::1]', 'loopback', undefined],
    ['::ffff:127.0.0.1', 'loopback', undefined],
    ['::ffff:7f00:1', 'loopback', undefined],
    ['::127.0.0.1', 'loopback', undefined],
    ['10.0.0.1', 'private', 'private'],
    ['172.16.0.1', 'private', 'private'],
    ['172.31.255.255', 'private', 'private'],
    ['192.168.1.10', 'private', 'private'],
    ['::ffff:10.0.0.1', 'private', 'private'],
    ['::ffff:192.168.0.1', 'private', 'private'],
    ['169.254.169.254', 'linkLocal', 'linkLocal'],
    ['::ffff:169.254.169.254', 'linkLocal', 'linkLocal'],
    ['fe80::1', 'linkLocal', 'linkLocal'],
    ['fe80::1%eth0', 'linkLocal', 'linkLocal'],
    ['fc00::1', 'uniqueLocal', 'uniqueLocal'],
    ['fd00:ec2::254', 'uniqueLocal', 'uniqueLocal'],
    ['fec0::1', 'deprecatedSiteLocal', 'deprecatedSiteLocal'],
    ['100.64.0.1', 'carrierGradeNat', 'carrierGradeNat'],
    ['224.0.0.1', 'multicast', 'multicast'],
    ['239.255.255.250', 'multicast', 'multicast'],
    ['ff02::1', 'multicast', 'multicast'],
    ['0.0.0.0', 'unspecified', 'unspecified'],
    ['::', 'unspecified', 'unspecified'],
    ['255.255.255.255', 'broadcast', 'broadcast'],
    ['192.0.2.1', 'reserved', 'reserved'],
    ['240.0.0.1', 'reserved', 'reserved'],
    ['2001:db8::1', 'reserved', 'reserved'],
    ['64:ff9b::a00:1', 'rfc6052', 'rfc6052'],
    ['2002:7f00:1::', '6to4', '6to4'],
    ['2001::1', 'teredo', 'teredo'],
    ['100::1', 'discard', 'discard'],
    ['example.edu', 'not an IP address', 'not an IP address'],
    ['0177.0.0.1', 'not an IP address', 'not an IP address'],
  ];
  for (const [address, production, development] of TABLE) {
    it(`${address}: ${production ?? 'allowed'} / development ${development ?? 'allowed'}`, () => {
      assert.equal(addressRefusal(address, PRODUCTION), production);
      assert.equal(addressRefusal(address, DEVELOPMENT), development);
    });
  }

  it('tells IP literals in URLs from names (WHATWG URL normalises 0177.0.0.1 and 2130706433 to 127.0.0.1)', () => {
    assert.equal(ipLiteralOf(new URL('http://0177.0.0.1/').hostname), '127.0.0.1');
    assert.equal(ipLiteralOf(new URL('http://2130706433/').hostname), '127.0.0.1');
    assert.equal(ipLiteralOf(new URL('http://[::ffff:a00:1]/').hostname), '::ffff:a00:1');
    assert.equal(ipLiteralOf('lms.example.edu'), undefined);
  });
});

describe('outbound schemes', () => {
  const TABLE: Array<[string, string | undefined, string | undefined]> = [
    ['https://lms.example.edu/x', undefined, undefined],
    ['http://lms.example.edu/x', 'plain http refused: https is required', 'plain http refused: https is required'],
    ['http://localhost:8080/x', 'plain http refused: https is required', undefined],
    ['http://127.0.0.1:8080/x', 'plain http refused: https is required', undefined],
    ['http://[::1]:8080/x', 'plain http refused: https is required', undefined],
    ['http://10.0.0.1/x', 'plain http refused: https is required', 'plain http refused: https is required'],
    ['ftp://lms.example.edu/x', 'scheme ftp: refused', 'scheme ftp: refused'],
    ['file:///etc/passwd', 'scheme file: refused', 'scheme file: refused'],
  ];
  for (const [url, production, development] of TABLE) {
    it(`${url}: ${production ?? 'allowed'} / development ${development ?? 'allowed'}`, () => {
      assert.equal(schemeRefusal(new URL(url), PRODUCTION), production);
      assert.equal(schemeRefusal(new URL(url), DEVELOPMENT), development);
    });
  }
});
