// Text rules shared by validation: lengths are counted in Unicode code points (docs/http-api.md#conventions).

export function codePointLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}
