import { describe, expect, it } from 'vitest';
import { isPublicAddress, urlProblem } from '../../functions/domain/urls.ts';

const live = { allowHttp: false, allowPrivateTargets: false };
const test = { allowHttp: true, allowPrivateTargets: false };
const local = { allowHttp: true, allowPrivateTargets: true };

describe('merchant URLs', () => {
  it('accepts public https URLs in both modes and http in test mode only', () => {
    expect(urlProblem('https://shop.example.com/thanks?order=1', live)).toBeUndefined();
    expect(urlProblem('http://shop.example.com/thanks', test)).toBeUndefined();
    expect(urlProblem('http://shop.example.com/thanks', live)).toMatch(/https/);
  });

  it('accepts public IP literals and names that merely contain an address', () => {
    expect(urlProblem('https://93.184.216.34/hook', live)).toBeUndefined();
    expect(urlProblem('https://[2606:4700::1111]/hook', live)).toBeUndefined();
    expect(urlProblem('https://10.0.0.1.example.com/hook', live)).toBeUndefined();
  });

  it.each(['shop.example.com', '/relative', 'ftp://example.com', 'javascript:alert(1)', ''])(
    'rejects %j as not an absolute http(s) URL',
    (raw) => {
      expect(urlProblem(raw, test)).toBeDefined();
    },
  );

  it.each([
    'https://shop.example.com/thanks\r\nSet-Cookie: a=b',
    'https://shop.example.com/th\tanks',
    ' https://shop.example.com/',
    'https://shop.example.com/\u0000',
    'https://shop.example.com/a b',
    'https://shop.example.com\\@evil.example/',
    'https://shop.example.com/caf\u00e9',
    'https://xn--caf-dma.example/<script>',
  ])('rejects %j, whose characters the URL parser would drop, rewrite or encode', (raw) => {
    expect(urlProblem(raw, local)).toMatch(/RFC 3986/);
  });

  it('accepts percent-encoded and every other character RFC 3986 allows', () => {
    expect(
      urlProblem("https://xn--caf-dma.example:8443/a%20b/c;d=e?x=[1]&y=!$'()*+,~#frag@", live),
    ).toBeUndefined();
  });

  it('rejects credentials and over-long URLs', () => {
    expect(urlProblem('https://user:pw@example.com/', live)).toMatch(/credentials/);
    expect(urlProblem(`https://example.com/${'a'.repeat(2048)}`, live)).toMatch(/2048/);
  });

  it.each([
    'https://localhost/hook',
    'https://api.localhost/hook',
    'https://127.0.0.1/hook',
    'https://2130706433/hook',
    'https://0x7f.1/hook',
    'https://0177.0.0.1/hook',
    'https://127.1/hook',
    'https://localhost./hook',
    'https://10.0.0.8/hook',
    'https://172.16.3.4/hook',
    'https://192.168.1.1/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://0.0.0.0/',
    'https://100.64.0.1/',
    'https://224.0.0.1/',
    'https://[::1]/hook',
    'https://[::]/hook',
    'https://[fe80::1]/hook',
    'https://[fd00:ec2::254]/',
    'https://[::ffff:127.0.0.1]/hook',
    'https://[::ffff:a9fe:a9fe]/hook',
    'https://[::7f00:1]/hook',
    'https://[::a9fe:a9fe]/hook',
  ])('rejects the non-public target %s unless private targets are allowed', (raw) => {
    expect(urlProblem(raw, live)).toBeDefined();
    expect(urlProblem(raw, test)).toBeDefined();
    expect(urlProblem(raw, local)).toBeUndefined();
  });

  it('tells public addresses from the rest', () => {
    expect(isPublicAddress('93.184.216.34')).toBe(true);
    expect(isPublicAddress('2606:2800:220:1::1')).toBe(true);
    expect(isPublicAddress('::ffff:93.184.216.34')).toBe(true);
    expect(isPublicAddress('::ffff:10.0.0.1')).toBe(false);
    expect(isPublicAddress('not-an-ip')).toBe(false);
  });
});
