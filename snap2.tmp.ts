import { loadKZG } from 'kzg-wasm'
import { readFileSync } from 'node:fs'
const snap = readFileSync('/tmp/kzg.snap')
const orig = WebAssembly.instantiate
;(WebAssembly as any).instantiate = async (...a: any[]) => {
  const r: any = await (orig as any)(...a)
  const inst = r.instance ?? r
  const exports = { ...inst.exports, load_trusted_setup_wasm: () => { new Uint8Array(inst.exports.memory.buffer).set(snap); return 0 } }
  const fake = { exports }
  return r.instance ? { module: r.module, instance: fake } : fake
}
let maxGap = 0, last = performance.now(); const iv = setInterval(() => { const n = performance.now(); maxGap = Math.max(maxGap, n - last); last = n }, 1)
const t = performance.now()
const kzg: any = await loadKZG()
;(WebAssembly as any).instantiate = orig
console.log('restore ms', performance.now() - t)
const { blob, c, p } = JSON.parse(readFileSync('/tmp/kzg.vec.json', 'utf8'))
let t2 = performance.now()
console.log('verify', kzg.verifyBlobKZGProof(blob, c, p), performance.now() - t2)
console.log('commit same', kzg.blobToKZGCommitment(blob) === c)
const bad = p.slice(0, -2) + (p.endsWith('00') ? '01' : '00')
console.log('verify bad', (() => { try { return kzg.verifyBlobKZGProof(blob, c, bad) } catch (e) { return 'threw ' + e.message } })())
t2 = performance.now(); const cells = kzg.computeCellsAndKZGProofs(blob); console.log('cells', cells.cells.length, performance.now() - t2)
clearInterval(iv); console.log('maxGap', maxGap)
