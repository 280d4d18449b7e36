import { createChainCommon, normalizeGenesis } from '../chain/genesis.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import { POA_NO_SYSTEM_CALLS_WARNING, poaSystemCallsWarning } from './poaSystemCalls.ts'

const SIGNER_EXTRA = `0x${'00'.repeat(32)}${'11'.repeat(20)}${'00'.repeat(65)}`
const ADDRESSES = {
  depositContractAddress: '0x00000000219ab540356cbb839cbe05303d7705fa',
  withdrawalRequestContractAddress: '0x00000961ef480eb55e80d19ad83579a64c007002',
  consolidationRequestContractAddress: '0x0000bbddc7ce488642fb579f8b00f3a590007251',
}

/** The start warning of a chain with `config` (a clique signer in extraData). */
function warningOf(config: Record<string, unknown>): string | undefined {
  const genesis = normalizeGenesis({
    config: { chainId: 7, ...config },
    extraData: SIGNER_EXTRA,
    gasLimit: '0x1c9c380',
  })
  return poaSystemCallsWarning(createChainCommon(genesis, {}))
}

describe('poaSystemCallsWarning', () => {
  it("gives Besu's warning for a PoA chain with Prague (or a later fork) and not all three addresses", () => {
    expect(warningOf({ londonBlock: 0, clique: {}, shanghaiTime: 0, cancunTime: 0, pragueTime: 0 })).toBe(
      POA_NO_SYSTEM_CALLS_WARNING,
    )
    // Osaka alone brings Prague along (Besu's osakaDefinition builds on pragueDefinition).
    expect(warningOf({ londonBlock: 0, qbft: {}, osakaTime: 1_000_000 })).toBe(POA_NO_SYSTEM_CALLS_WARNING)
    const { consolidationRequestContractAddress: _, ...two } = ADDRESSES
    expect(warningOf({ londonBlock: 0, clique: {}, pragueTime: 0, ...two })).toBe(POA_NO_SYSTEM_CALLS_WARNING)
  })

  it('gives none before Prague, with the three addresses, or off PoA', () => {
    expect(warningOf({ londonBlock: 0, clique: {}, shanghaiTime: 0, cancunTime: 0 })).toBeUndefined()
    expect(warningOf({ londonBlock: 0, clique: {}, pragueTime: 0, ...ADDRESSES })).toBeUndefined()
    expect(warningOf({ londonBlock: 0, terminalTotalDifficulty: 0, pragueTime: 0 })).toBeUndefined()
  })
})
