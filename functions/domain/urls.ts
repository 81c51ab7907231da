import ipaddr from 'ipaddr.js';

export const MAX_URL_LENGTH = 2048;

export interface UrlPolicy {
  /** `http` is accepted for test-mode links only; live links need `https`. */
  allowHttp: boolean;
  /** Loopback, private and other non-public targets: only a deployment that opts in (the local stack). */
  allowPrivateTargets: boolean;
}

/**
 * Whether an IP address is a public unicast address. `ipaddr.js` names every special-purpose range of IANA's
 * registries; anything but `unicast` (private, loopback, link-local incl. 169.254.169.254, unique-local incl.
 * fd00:ec2::254, multicast, reserved, 6to4/Teredo/NAT64 wrappers...) is refused. IPv4-mapped IPv6 is judged
 * by the IPv4 address it carries.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6') {
    const ipv6 = parsed as ipaddr.IPv6;
    // The deprecated IPv4-compatible form ::a.b.c.d (::/96), which ipaddr.js calls unicast: never public.
    if (ipv6.parts.slice(0, 6).every((part) => part === 0)) return false;
    if (ipv6.isIPv4MappedAddress()) parsed = ipv6.toIPv4Address();
  }
  return parsed.range() === 'unicast';
}

/**
 * The characters RFC 3986 allows in a URI. Anything else (spaces, CR/LF and other controls, which the WHATWG
 * parser silently drops; backslashes, which it reads as slashes; non-ASCII) would make the stored URL differ from
 * the one validated, break the `Location` header it ends up in, or grow the webhook body beyond its length.
 */
const URI_CHARACTERS = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]*$/;

function isLocalName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * The IP address a parsed URL's hostname is, if it is one. WHATWG parsing leaves an IP literal in one of two
 * shapes only: IPv6 in brackets, and IPv4 as four decimal parts (it normalises shorthands such as 2130706433 or
 * 0x7f.1 to 127.0.0.1, and refuses a host whose last label is numeric but no address). So a name is told apart
 * by its shape, without asking `ipaddr.js` to try every IPv4 notation on it, which costs more than the rest of
 * validating a link.
 */
function ipLiteralOf(hostname: string): string | undefined {
  if (hostname.startsWith('[')) return hostname.slice(1, -1);
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(hostname) ? hostname : undefined;
}

/** Why `raw` is not an acceptable merchant URL under `policy`, or undefined when it is. */
export function urlProblem(raw: string, policy: UrlPolicy): string | undefined {
  if (raw.length > MAX_URL_LENGTH) return `Must be at most ${MAX_URL_LENGTH} characters.`;
  if (!URI_CHARACTERS.test(raw)) {
    return 'Must contain only the characters a URL allows (RFC 3986): percent-encode spaces, control and non-ASCII characters.';
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'Must be an absolute URL.';
  }
  if (url.protocol !== 'https:' && !(policy.allowHttp && url.protocol === 'http:')) {
    return policy.allowHttp
      ? 'Must use https or http.'
      : 'Must use https (http is accepted for test mode only).';
  }
  if (url.username || url.password) return 'Must not contain credentials.';
  if (policy.allowPrivateTargets) return undefined;
  if (isLocalName(url.hostname)) return 'Must not point to localhost.';
  const address = ipLiteralOf(url.hostname);
  if (address !== undefined && !isPublicAddress(address)) {
    return 'Must not point to a private or reserved address.';
  }
  return undefined;
}
