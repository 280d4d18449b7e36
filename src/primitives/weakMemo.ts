/**
 * `make` remembered per key object (held weakly): for values derived from objects that never change
 * once made, such as a block's hash in hex or the account an RLP encodes.
 */
export function weakMemo<K extends object, V>(make: (key: K) => V): (key: K) => V {
  const made = new WeakMap<K, V>()
  return (key) => {
    let value = made.get(key)
    if (value === undefined) {
      value = make(key)
      made.set(key, value)
    }
    return value
  }
}
