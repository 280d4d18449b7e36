/** The log filter object as Besu's FilterParameter reads it. */
import { bytesToHex } from '../../primitives/hex.ts'
import { describe, expect, it } from '../../runtime/testing.ts'
import { filterParam } from './logFilterParam.ts'

const HASH: `0x${string}` = `0x${'3c'.repeat(32)}`

describe('filterParam', () => {
  it('takes blockhash as another name of blockHash', () => {
    const f = filterParam.decode({ blockhash: HASH })
    expect(f.blockHash === undefined ? undefined : bytesToHex(f.blockHash)).toBe(HASH)
  })

  it('refuses blockhash beside a block range, as blockHash', () => {
    for (const name of ['blockHash', 'blockhash'])
      expect(() => filterParam.decode({ [name]: HASH, fromBlock: '0x17', toBlock: '0x17' })).toThrow(
        /cannot specify both BlockHash and FromBlock\/ToBlock/,
      )
  })
})
