// Where a rewrite of a file changed it, to show the user. Pure: no vscode.

/**
 * The first line (0-based) of `after` that differs from `before`: where a whole-file write made
 * its first change. Lines only removed at the end give the last line of `after`; a new file (empty
 * `before`) and an unchanged one give 0.
 */
export function firstChangedLine(before: string, after: string): number {
  if (before === "" || before === after) return 0;
  const old = before.split("\n");
  const now = after.split("\n");
  let line = 0;
  while (line < old.length && line < now.length && old[line] === now[line]) line++;
  return Math.min(line, now.length - 1);
}
