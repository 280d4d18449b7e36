/** snappyjs ships no types: the two functions devp2p v5 framing uses. */
declare module 'snappyjs' {
  function compress(input: Uint8Array): Uint8Array
  function uncompress(input: Uint8Array): Uint8Array
  const snappy: { compress: typeof compress; uncompress: typeof uncompress }
  export default snappy
}
