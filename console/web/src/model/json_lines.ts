// splitLines cuts a watch stream, which arrives in chunks that need not end
// on a line, into whole lines; the remainder waits for the next chunk.
export function splitLines(rest: string, chunk: string): { lines: string[]; rest: string } {
  const parts = (rest + chunk).split('\n');
  const tail = parts.pop() ?? '';
  return { lines: parts.map((l) => l.trim()).filter((l) => l !== ''), rest: tail };
}
