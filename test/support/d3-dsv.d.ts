// d3-dsv (an RFC 4180 parser, installed with vega) ships no types: the one function the tests use.
declare module 'd3-dsv' {
  export function csvParseRows(text: string): string[][];
}
