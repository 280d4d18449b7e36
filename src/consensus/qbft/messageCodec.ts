/** The wire format of each BFT kind: QBFT's `istanbul/100` or IBFT 2.0's `IBF/1`. */
import type { BftKind } from '../bftExtraData.ts'
import { ibft2Codec } from '../ibft2/ibftMessages.ts'
import { type MessageCodec, qbftCodec } from './messages.ts'

export function codecFor(kind: BftKind): MessageCodec {
  return kind === 'ibft2' ? ibft2Codec : qbftCodec
}
