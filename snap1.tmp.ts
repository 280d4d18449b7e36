import { loadKZG } from 'kzg-wasm'
import { writeFileSync } from 'node:fs'
// capture memory via instantiateWasm hook is internal to loadKZG; instead patch WebAssembly.instantiate to grab exports
let mem: WebAssembly.Memory | undefined
const orig = WebAssembly.instantiate
;(WebAssembly as any).instantiate = async (...a: any[]) => { const r: any = await (orig as any)(...a); const inst = r.instance ?? r; mem = inst.exports.memory; return r }
const t = performance.now()
const kzg: any = await loadKZG()
console.log('load ms', performance.now() - t, 'mem', mem?.buffer.byteLength)
const blob = '0x' + '00'.repeat(131072 - 32) + '01'.padStart(64, '0')
const c = kzg.blobToKZGCommitment(blob); const p = kzg.computeBlobKZGProof(blob, c)
console.log('verify', kzg.verifyBlobKZGProof(blob, c, p))
writeFileSync('/tmp/kzg.snap', new Uint8Array(mem!.buffer))
writeFileSync('/tmp/kzg.vec.json', JSON.stringify({ blob, c, p }))
