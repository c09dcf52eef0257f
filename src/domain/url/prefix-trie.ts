interface TrieNode<V> {
  children: Map<string, TrieNode<V>>;
  value: V | undefined;
  hasValue: boolean;
}

/**
 * Values keyed by string prefix; a lookup returns the value of the longest stored prefix of the
 * key, so the most specific rule wins (docs/design.md, "Scope and the URL filter": `host` pass, `host/a` block,
 * `host/a/b` pass). Character-level, like robots.txt paths: `/a` also covers `/ab`; write
 * `/a/` to mean the folder only. Lookup costs O(key length), independent of the rule count.
 */
export class PrefixTrie<V> {
  private readonly root: TrieNode<V> = newNode();
  private count = 0;

  /** Stores `value` under `prefix`, replacing an earlier value for the same prefix. */
  set(prefix: string, value: V): void {
    let node = this.root;
    for (const ch of prefix) {
      let next = node.children.get(ch);
      if (!next) {
        next = newNode();
        node.children.set(ch, next);
      }
      node = next;
    }
    if (!node.hasValue) this.count++;
    node.value = value;
    node.hasValue = true;
  }

  /** The value stored under exactly `prefix`. */
  get(prefix: string): V | undefined {
    let node: TrieNode<V> | undefined = this.root;
    for (const ch of prefix) {
      node = node.children.get(ch);
      if (!node) return undefined;
    }
    return node.value;
  }

  /** The longest stored prefix of `key` and its value, or undefined if none is a prefix. */
  longestMatch(key: string): { prefix: string; value: V } | undefined {
    let node: TrieNode<V> | undefined = this.root;
    let best: { length: number; value: V } | undefined = this.root.hasValue ? { length: 0, value: this.root.value as V } : undefined;
    let length = 0;
    for (const ch of key) {
      node = node.children.get(ch);
      if (!node) break;
      length += ch.length;
      if (node.hasValue) best = { length, value: node.value as V };
    }
    return best ? { prefix: key.slice(0, best.length), value: best.value } : undefined;
  }

  /** Number of stored prefixes. */
  get size(): number {
    return this.count;
  }
}

function newNode<V>(): TrieNode<V> {
  return { children: new Map(), value: undefined, hasValue: false };
}
