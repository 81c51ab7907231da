/**
 * What test/support/map-read-recorder.ts writes into a function container's stderr: whether Node's own
 * source-map support was on, and each read of a `.map` file.
 */
export const MAP_READ_MARKER = 'map-read-recorder';

/** The `.map` files a container's output says it read. */
export const mapReadsIn = (output: string): string[] =>
  output
    .split('\n')
    .filter((line) => line.startsWith(`${MAP_READ_MARKER} read `))
    .map((line) => line.slice(`${MAP_READ_MARKER} read `.length));
