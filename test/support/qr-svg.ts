import decodeQR from 'qr/decode.js';

/**
 * Reads back an SVG QR code the way a phone camera would: the path's unit cells are painted onto a white
 * bitmap (8 pixels a module) and handed to a QR decoder, so a test checks what the code says, not how the
 * library draws it. Understands the path grammar an SVG QR code uses: `M x y` / `m dx dy` moves (a `Z` goes
 * back to the subpath's start) each followed by one filled module.
 */
export function decodeSvgQr(svg: string): string {
  const viewBox = /viewBox="0 0 (\d+) (\d+)"/.exec(svg);
  const path = /<path d="([^"]+)"/.exec(svg);
  if (!viewBox || !path) throw new Error('not an SVG QR code');
  const size = Number(viewBox[1]);
  const scale = 8;
  const width = size * scale;
  const data = new Uint8Array(width * width * 3).fill(255);
  let x = 0;
  let y = 0;
  for (const [, command, a, b] of (path[1] as string).matchAll(/([Mm])(-?\d+) (-?\d+)/g)) {
    if (command === 'M') {
      x = Number(a);
      y = Number(b);
    } else {
      x += Number(a);
      y += Number(b);
    }
    for (let row = y * scale; row < (y + 1) * scale; row++) {
      data.fill(0, (row * width + x * scale) * 3, (row * width + (x + 1) * scale) * 3);
    }
  }
  return decodeQR({ width, height: width, data });
}
