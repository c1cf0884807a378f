// Which entries of a ranking left their place among the others. When one fund rises from 5th to
// 1st, the four it passed each move down one position without having changed anything: the entries
// kept in order are the longest run common to both orders, and only the others are displaced. Of
// the longest runs, the one keeping the most entries at their very positions is taken (old A B C,
// new C B A: B stayed, A and C are displaced), so the answer is the one a reader would give.

/** The ids, present in both orders, that are not in the kept run. O(n log n). */
export function displacedEntries(before: readonly string[], after: readonly string[]): Set<string> {
  const oldIndex = new Map(before.map((id, i) => [id, i]));
  const common = after.flatMap((id, i) => (oldIndex.has(id) ? [{ id, old: oldIndex.get(id)!, stayed: oldIndex.get(id) === i }] : []));
  const n = common.length;
  // A run's worth: its length first, then how many of its entries stayed put.
  const worth = new Float64Array(n);
  const previous = new Int32Array(n).fill(-1);
  // Fenwick tree over old indexes: the best run ending below an old index, and where it ends.
  const size = before.length;
  const treeWorth = new Float64Array(size + 1);
  const treeEnd = new Int32Array(size + 1).fill(-1);
  for (let i = 0; i < n; i++) {
    const { old, stayed } = common[i]!;
    let bestWorth = 0;
    let bestEnd = -1;
    for (let k = old; k > 0; k -= k & -k) {
      if (treeWorth[k]! > bestWorth) [bestWorth, bestEnd] = [treeWorth[k]!, treeEnd[k]!];
    }
    worth[i] = bestWorth + (n + 1) + (stayed ? 1 : 0);
    previous[i] = bestEnd;
    for (let k = old + 1; k <= size; k += k & -k) {
      if (worth[i]! > treeWorth[k]!) [treeWorth[k], treeEnd[k]] = [worth[i]!, i];
    }
  }
  let end = -1;
  for (let i = 0; i < n; i++) if (end === -1 || worth[i]! > worth[end]!) end = i;
  const kept = new Set<string>();
  for (let i = end; i !== -1; i = previous[i]!) kept.add(common[i]!.id);
  return new Set(common.filter((entry) => !kept.has(entry.id)).map((entry) => entry.id));
}
