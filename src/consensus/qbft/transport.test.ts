import { describe, expect, it } from '../../runtime/testing.ts'
import { COMMIT, PREPARE, PROPOSAL, ROUND_CHANGE } from './messages.ts'
import { QBFT_CAPABILITY, soloTransport } from './transport.ts'

describe('QBFT transport', () => {
  it("names Besu's capability, whose message space holds every QBFT code", () => {
    expect(`${QBFT_CAPABILITY.name}/${QBFT_CAPABILITY.version}`).toBe('istanbul/100')
    for (const code of [PROPOSAL, PREPARE, COMMIT, ROUND_CHANGE])
      expect(code).toBeLessThan(QBFT_CAPABILITY.messageSpace)
  })

  it('connects a network of one to nobody', () => {
    let heard = 0
    const off = soloTransport.onMessage(() => heard++)
    soloTransport.broadcast(PREPARE, new Uint8Array(1))
    off()
    expect(heard).toBe(0)
  })
})
